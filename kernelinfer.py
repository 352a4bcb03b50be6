"""kernelinfer as a `datasets` builder, for users of a checkout or of a copy of this file: the definition lives in
the package (`generator/kernelinfer_builder.py`, shipped in the wheel), this module only re-exports it.

    from kernelinfer import KernelInfer
"""
from generator.kernelinfer_builder import (  # noqa: F401
    DATASET,
    FEATURES,
    HOLDOUT_FEATURES,
    KernelInfer,
    KernelInferConfig,
    MAIN_CONFIG,
    MERGED_FILE,
)

__all__ = ["DATASET", "FEATURES", "HOLDOUT_FEATURES", "KernelInfer", "KernelInferConfig", "MAIN_CONFIG", "MERGED_FILE"]
