"""The op catalog, tasks and their split, and seeding."""
import ast
import copy
import dataclasses
import pickle
import re
import shutil
import subprocess

import numpy as np
import pytest

from generator.catalog.hardware import GPUS
from generator.catalog.ops import FAMILIES, OPS, SWARM_OPS
from generator.sim.seeding import rng_for, rng_for_purpose
from generator.catalog.tasks import Task, all_tasks, make_task, split_tasks

# The kernelinfer seed's Scope, op by op (quantized GEMM dtypes are checked separately).
SCOPE = ["flash_decode", "flash_prefill", "swa_decode", "mla_decode", "tree_attn", "chunked_prefill", "cross_attn",
         "fused_qkv_rope", "paged_kv_copy", "kv_append", "kv_int8_quant", "topk_sample", "nucleus_sample",
         "minp_sample", "logits_softmax", "moe_scatter", "moe_combine", "moe_grouped_gemm", "mamba_scan",
         "mamba_step", "rmsnorm", "rope", "swiglu_act", "embedding_gather", "conv1d_causal", "conv2d_nhwc",
         "gemv_fp16"]


def test_catalog_size_scope_and_swarm_names():
    assert len(OPS) >= 41
    assert set(SCOPE) <= set(OPS)
    assert len(SWARM_OPS) == 17 and set(SWARM_OPS) <= set(OPS)
    assert {op.family for op in OPS.values()} == set(FAMILIES)
    gemm_dtypes = {d for op in OPS.values() if op.family == "gemm" for d in op.dtypes}
    assert {"fp16", "int8", "int4", "fp4", "fp8"} <= gemm_dtypes
    assert "fp8_blockwise_gemm" in OPS


def test_every_op_has_realistic_shapes_and_a_description():
    for op in OPS.values():
        assert len(op.shapes) >= 3, op.name
        assert len({tuple(s.items()) for s in op.shapes}) == len(op.shapes), op.name
        keys = list(op.shapes[0])
        for s in op.shapes:
            assert list(s) == keys and all(re.fullmatch(r"[A-Z]+", k) for k in s), op.name
            assert all(isinstance(v, int) and v > 0 for v in s.values()), op.name
        assert len(op.desc) > 40 and "\n" not in op.desc
        if op.name.startswith("triton_"):
            assert op.impls == ("triton",)


def test_bytes_and_flops_formulas_on_known_cases():
    fd = OPS["flash_decode"]
    shape = {"B": 8, "H": 32, "D": 128, "T": 4096, "P": 16}
    kv = 2 * 8 * 32 * 4096 * 128 * 2  # the seed's "~537 MB of KV cache"
    assert kv <= fd.bytes_moved(shape, "fp16") < kv * 1.001
    assert fd.flops(shape, "fp16") == 4 * 8 * 32 * 4096 * 128
    g = OPS["gemm_fp16"]
    assert g.bytes_moved({"M": 4096, "N": 4096, "K": 4096}, "fp16") == 3 * 4096 * 4096 * 2
    assert g.flops({"M": 4096, "N": 4096, "K": 4096}, "fp16") == 2 * 4096 ** 3
    w4 = OPS["int4_gemv"].bytes_moved({"M": 1, "N": 4096, "K": 4096, "G": 128}, "int4")
    assert 4096 * 4096 // 2 < w4 < 4096 * 4096 // 2 * 1.1  # int4 weights dominate; scales are 1/128 of them
    assert OPS["int4_gemv"].compute_dtype("int4") == "fp16"


def test_triton_signatures_parse_as_python():
    for op in OPS.values():
        if "triton" in op.impls:
            ast.parse(op.signature("triton") + "\n    pass\n")


@pytest.mark.compiler
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_cuda_signatures_compile_with_nvcc(tmp_path):
    lines = ["#include <cstdint>", "#include <cuda_fp16.h>", "#include <cuda_bf16.h>", "#include <cuda_fp8.h>"]
    sigs = [op.signature("cuda", d) for op in OPS.values() if "cuda" in op.impls for d in op.dtypes]
    # one namespace each: a struct-class op's signature defines a `struct Operands` and declares its launcher, a
    # kernel's is a prototype
    lines += [f"namespace s{i} {{ {sig}{';' if sig.startswith('struct ') else ' {}'} }}" for i, sig in enumerate(sigs)]
    src = tmp_path / "signatures.cu"
    src.write_text("\n".join(lines) + "\n")
    proc = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_80", "-c", str(src), "-o", str(tmp_path / "s.o")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_tasks_are_many_unique_and_expressible():
    tasks = all_tasks()
    assert len(tasks) >= 2600
    assert len({t.key() for t in tasks}) == len(tasks)
    assert {t.gpu for t in tasks} == set(GPUS)
    # Triton has no fp8 type below sm_89, so no such task exists
    assert not [t for t in tasks if t.impl == "triton" and t.dtype == "fp8" and t.gpu in ("a100", "a10")]
    assert all(t.arch == GPUS[t.gpu].arch for t in tasks[:50])


def test_a_task_hashes_as_its_fields_and_survives_pickling_and_replace():
    """The hash is computed once but must stay the dataclass's: sets of tasks iterate in the same order."""
    t = all_tasks()[7]
    assert hash(t) == hash((t.op, t.impl, t.gpu, t.dtype, t.shape))
    for other in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t), Task(*dataclasses.astuple(t))):
        assert other == t and hash(other) == hash(t)
    moved = dataclasses.replace(t, dtype="fp32")
    assert hash(moved) == hash((t.op, t.impl, t.gpu, "fp32", t.shape)) and dataclasses.astuple(moved)[3] == "fp32"


def test_make_task_checks_the_catalog():
    t = make_task("rmsnorm", "cuda", "h100", "bf16", {"T": 1, "H": 4096})
    assert t == Task("rmsnorm", "cuda", "h100", "bf16", (("T", 1), ("H", 4096)))
    assert t.label() == "rmsnorm_h100_T=1,H=4096"
    with pytest.raises(ValueError, match="shape"):
        make_task("rmsnorm", "cuda", "h100", "bf16", {"T": 3, "H": 4096})
    with pytest.raises(ValueError, match="no task"):
        make_task("triton_rmsnorm", "cuda", "h100", "bf16", {"T": 1, "H": 4096})


def test_kernelinfer_split_sizes_disjoint_and_deterministic():
    s = split_tasks(0, 1899, 195, stream=1)
    assert len(s.train) == 1899 == len(set(s.train)) and len(s.holdout) == 195
    assert not {t.group() for t in s.train} & {t.group() for t in s.holdout}
    assert len({t.group() for t in s.holdout}) == 195
    assert s == split_tasks(0, 1899, 195, stream=1)
    assert s.holdout == split_tasks(1, 1899, 195, stream=1).holdout   # the fixed benchmark


def test_kernelswarm_split_keeps_op_gpu_shape_disjoint():
    s = split_tasks(7, None, 120, ops=SWARM_OPS, stream=2)
    assert {t.op for t in s.train} == set(SWARM_OPS)
    assert not {t.group() for t in s.train} & {t.group() for t in s.holdout}
    with pytest.raises(ValueError, match="only"):
        split_tasks(0, 1_000_000, 195, stream=1)


def test_rng_streams_are_pure_and_distinct():
    a = rng_for(3, 1, 5).random(4)
    assert np.array_equal(a, rng_for(3, 1, 5).random(4))
    assert not np.array_equal(a, rng_for(3, 1, 6).random(4))
    assert not np.array_equal(a, rng_for(3, 2, 5).random(4))
    assert not np.array_equal(rng_for_purpose(3, 1, "split").random(4), rng_for(3, 1, 0).random(4))
