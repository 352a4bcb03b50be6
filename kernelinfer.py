"""kernelinfer as a `datasets` builder, for a checkout or a copied file: a thin re-export of the package's builder.

Configs: `sessions` (default; split train, `batches/*.jsonl`) and `holdout` (split test, `tasks_holdout.jsonl`).
Configs, features and rows come from the `KERNELINFER` descriptor (generator/kernelinfer/dataset.py), the same one the card's
YAML is generated from, so `load_dataset(folder_or_repo, config)` and this builder agree by construction.

    from kernelinfer import KernelInfer
"""
from generator.kernelinfer.builder import KernelInfer, KernelInferConfig
from generator.kernelinfer.dataset import KERNELINFER

DATASET = KERNELINFER.name
FEATURES = KERNELINFER.features
MAIN_CONFIG = KERNELINFER.configs[0].name
MERGED_FILE = KERNELINFER.merged_file

__all__ = ["DATASET", "FEATURES", "KernelInfer", "KernelInferConfig", "MAIN_CONFIG", "MERGED_FILE"]
