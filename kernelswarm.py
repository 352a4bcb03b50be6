"""kernelswarm as a `datasets` builder, for a checkout or a copied file: a thin re-export of the package's builder.

Configs: `episodes` (default; split train, `batches/*.jsonl`) and `holdout` (split test, `tasks_holdout.jsonl`).
Configs, features and rows come from the `KERNELSWARM` descriptor (generator/kernelswarm/dataset.py), the same one the card's
YAML is generated from, so `load_dataset(folder_or_repo, config)` and this builder agree by construction.

    from kernelswarm import KernelSwarm
    b = KernelSwarm(config_name="episodes", data_dir="out/kernelswarm"); b.download_and_prepare(); b.as_dataset()
    KernelSwarm(config_name="episodes", seed=0, num_episodes=30)      # generated on the fly, same rows as the CLI
"""
from generator.kernelswarm.builder import KernelSwarm, KernelSwarmConfig
from generator.kernelswarm.dataset import KERNELSWARM

DATASET = KERNELSWARM.name
FEATURES = KERNELSWARM.features
MAIN_CONFIG = KERNELSWARM.configs[0].name
MERGED_FILE = KERNELSWARM.merged_file

__all__ = ["DATASET", "FEATURES", "KernelSwarm", "KernelSwarmConfig", "MAIN_CONFIG", "MERGED_FILE"]
