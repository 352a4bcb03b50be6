"""kernelswarm as a `datasets` builder: configs, features and rows all come from the `KERNELSWARM` descriptor."""
from __future__ import annotations

from dataclasses import dataclass

import datasets

from generator.builder import KernelstrainBuilder, KernelstrainConfig
from generator.kernelswarm.dataset import KERNELSWARM


@dataclass
class KernelSwarmConfig(KernelstrainConfig):
    num_episodes: int | None = None


class KernelSwarm(KernelstrainBuilder):
    """kernelswarm episodes (default) and held-out tasks."""

    VERSION = datasets.Version("1.0.0")
    DATASET = KERNELSWARM
    BUILDER_CONFIG_CLASS = KernelSwarmConfig
    BUILDER_CONFIGS = KernelstrainBuilder.configs_for(KERNELSWARM, KernelSwarmConfig)
    DEFAULT_CONFIG_NAME = KERNELSWARM.configs[0].name
