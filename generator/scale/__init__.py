"""Generation past one machine: a dataset made as independent shard tasks on an engine (`engines`: local,
Ray, Slurm) into any fsspec URL (`store`), resumed from completion markers (`shards`), then assembled (`finish`).
The task space it draws from (the fixed benchmark, engineers per task, model shapes) lives in `generator/catalog/`."""
