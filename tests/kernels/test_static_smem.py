"""Dynamic plus static shared memory against the opt-in cap: static figures only from ptxas's record
(generator/catalog/static_smem.tsv)."""
import pytest

from generator.catalog import resources
from generator.catalog.hardware import GPUS
from generator.catalog.tasks import make_task
from generator.catalog.variants import launch_limits, variant
from generator.kernels import record_resources, render
from generator.kernels.compilers import nvcc_path
from generator.kernels.faults import expect_clean

_VERSION, TABLE = resources.read_static_table()
# flash_decode_cuda_a10_bf16_71b1abe2 of the row audit: its step 11 was reported ok
A10_DECODE = make_task("flash_decode", "cuda", "a10", "bf16", {"B": 32, "H": 8, "D": 128, "T": 8192, "P": 16})
SPLIT_KV = variant("attn_decode", "split_kv", "cuda")


def test_table_records_tool_version_and_both_outcomes():
    assert _VERSION.startswith("Cuda compilation tools, release")
    suspects = record_resources.static_suspects()
    assert set(suspects) == set(TABLE)      # every configuration near the cap has its figure, and no other row
    refused = [k for k, (task, v, p) in suspects.items()
               if (r := launch_limits(v, p, task.gpu, task.dtype, task)) and "of static shared memory" in r]
    assert refused and len(refused) < len(suspects)


def test_the_audited_decode_step_is_refused_quoting_ptxas_static_figure():
    params = {"BLOCK_N": 64, "NUM_STAGES": 3, "NUM_WARPS": 4, "SPLITS": 4}
    static = resources.static_smem(A10_DECODE, SPLIT_KV, params, GPUS["a10"])
    assert static == 4224     # what `nvcc -Xptxas -v` printed for the audited row's source (sm_86)
    reason = launch_limits(SPLIT_KV, params, "a10", "bf16", A10_DECODE)
    assert reason == ("invalid argument: 98304 bytes of dynamic + 4224 bytes of static shared memory > 101376 "
                      "(cudaFuncAttributeMaxDynamicSharedMemorySize)")
    got = expect_clean(render(A10_DECODE, SPLIT_KV, params), A10_DECODE, SPLIT_KV, params)
    assert (got.status, got.kind, got.message) == ("launch_error", "dyn_smem_over_cap", "CUDA error: invalid argument")


def test_far_below_the_cap_static_arrays_are_not_looked_up():
    params = {"BLOCK_N": 32, "NUM_STAGES": 2, "NUM_WARPS": 8, "SPLITS": 4}    # 32 KB dynamic on a 99 KB cap
    assert not resources.static_suspect(SPLIT_KV.smem_bytes(params, "bf16", A10_DECODE), GPUS["a10"])
    assert launch_limits(SPLIT_KV, params, "a10", "bf16", A10_DECODE) is None


def test_malformed_table_line_names_file_and_line(tmp_path):
    bad = tmp_path / "s.tsv"
    bad.write_text("# nvcc: x\n" + "\t".join(resources.STATIC_COLUMNS) + "\nflash_decode\tsplit_kv\n")
    with pytest.raises(ValueError, match=r"s\.tsv:3: expected 7"):
        resources.read_static_table(bad)


def _sharing(task, v, params):
    """Another legal configuration with the same static key: every tunable not in STATIC_PARAMS at its last
    value (so a template whose static arrays read one of them would give another figure)."""
    names = resources.STATIC_PARAMS.get((v.kernel_class, v.tag), ())
    return {k: (params[k] if k in names else choices[-1]) for k, choices in v.params.items()}


@pytest.mark.compiler
@pytest.mark.skipif(nvcc_path() is None, reason="nvcc not found")
def test_configurations_sharing_a_row_compile_to_its_figure(tmp_path):
    if record_resources.tool_version() != _VERSION:
        pytest.skip(f"installed nvcc {record_resources.tool_version()!r} is not the recorded {_VERSION!r}")
    by_arch = {}
    for k, (task, v, params) in list(record_resources.static_suspects().items())[::97]:
        other = _sharing(task, v, params)
        assert resources.static_key(task, v, other, GPUS[task.gpu].arch) == k
        src = render(task, v, other)
        by_arch.setdefault((src.compile_arch, v.kernel_class, v.tag), []).append((k, (task, v, other, src)))
    checked = 0
    for group, batch in by_arch.items():
        d = tmp_path / "_".join(group)
        d.mkdir()
        for (k, _item), use in zip(batch, record_resources._measure([item for _k, item in batch], d)):
            assert use.smem == TABLE[k], k
            checked += 1
    assert checked >= 20
