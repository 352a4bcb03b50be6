"""kernelinfer as a `datasets` builder: configs, features and rows all come from the `KERNELINFER` descriptor."""
from __future__ import annotations

from dataclasses import dataclass

import datasets

from generator.builder import KernelstrainBuilder, KernelstrainConfig
from generator.kernelinfer.dataset import KERNELINFER


@dataclass
class KernelInferConfig(KernelstrainConfig):
    num_sessions: int | None = None


class KernelInfer(KernelstrainBuilder):
    """kernelinfer sessions (default) and held-out tasks."""

    VERSION = datasets.Version("1.0.0")
    DATASET = KERNELINFER
    BUILDER_CONFIG_CLASS = KernelInferConfig
    BUILDER_CONFIGS = KernelstrainBuilder.configs_for(KERNELINFER, KernelInferConfig)
    DEFAULT_CONFIG_NAME = KERNELINFER.configs[0].name
