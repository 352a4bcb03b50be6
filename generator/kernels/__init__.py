"""Kernel source rendering (CUDA and Triton)."""
