"""Scaling past one seed and one machine: the fixed held-out benchmark, several engineers per task, and shard
generation on a distributed engine (`engine`)."""
