"""Triton OutOfResources: claimed only from Triton's recorded allocation (generator/catalog/triton_smem.tsv)."""
import pytest

from generator.catalog import resources
from generator.catalog.hardware import GPUS
from generator.catalog.tasks import all_tasks, make_task
from generator.catalog.variants import launch_limits, variant, variants_for
from generator.kernels import record_resources, render
from generator.kernels.compilers import compile_triton, triton_shared, triton_unavailable

_VERSION, TABLE, CLASSES = resources.read_triton_table()
_GPU_OF_CC = {90: "h100", 80: "a100", 86: "a10", 120: "rtx_5090"}


def _config(k):
    """A task, variant and params that the row `k` stands for (the first catalog task of its op and arch)."""
    op, tag, dtype, arch, constants, params = k
    gpu = _GPU_OF_CC[int(arch[3:])]
    bound = dict(kv.split("=") for kv in constants.split(",") if kv)
    task = next(t for t in all_tasks([op]) if t.impl == "triton" and t.gpu == gpu
                and resources.SAME_ALLOCATION.get(t.dtype, t.dtype) == dtype
                and all(str(dict(t.shape)[n]) == x for n, x in bound.items()))
    v = next(x for x in variants_for(op, "triton") if x.tag == tag)
    values = dict(kv.split("=") for kv in params.split(","))
    return task, v, {n: int(values.get(n, c[0])) for n, c in v.params.items()}


def test_table_records_triton_version_and_both_outcomes():
    assert _VERSION.startswith("triton 3.")
    over = [k for k, need in TABLE.items() if need > resources.TRITON_LIMIT[int(k[3][3:])]]
    assert over and len(over) < len(TABLE)


def test_every_configuration_the_recorder_nominates_is_recorded():
    assert {"attn_prefill"} <= CLASSES
    keys = {k for op in ("chunked_prefill", "cross_attn", "conv2d_nhwc")
            for k, *_ in record_resources.triton_suspects([op], classes=CLASSES)}
    assert keys and keys <= set(TABLE)


def test_out_of_resources_is_claimed_exactly_where_the_record_exceeds_and_quotes_it():
    rows = list(TABLE)[::7]
    assert {TABLE[k] > resources.TRITON_LIMIT[int(k[3][3:])] for k in rows} == {True, False}
    for k in rows:
        task, v, params = _config(k)
        gpu = GPUS[task.gpu]
        reason = launch_limits(v, params, gpu, task.dtype, task)
        limit = resources.TRITON_LIMIT[gpu.cc]
        if TABLE[k] > limit:
            assert reason == (f"out of resource: shared memory, Required: {TABLE[k]}, Hardware limit: {limit}. "
                              "Reducing block sizes or `num_stages` may help."), k
        else:
            assert reason is None, (k, reason)


def test_bf16_reads_the_fp16_row_and_a_what_if_the_estimate():
    k = next(k for k in TABLE if k[0] == "chunked_prefill" and k[3] == "sm_90")
    task, v, params = _config(k)
    bf16 = make_task(task.op, "triton", task.gpu, "bf16", task.shape_dict())
    assert resources.triton_shared(bf16, v, params) == resources.triton_shared(task, v, params) == TABLE[k]
    # without a task there is no shape to look up: the estimate answers, worded as Triton words it
    p = {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 128, "NUM_WARPS": 4, "NUM_STAGES": 4}
    gemm = variant("gemm", "pipelined", "triton")
    estimate = int(gemm.smem_bytes(p, "fp16"))
    assert launch_limits(gemm, p, "a10", "fp16") == resources.out_of_resources(estimate, resources.TRITON_LIMIT[86])


def test_every_triton_class_that_can_be_refused_is_recorded():
    """A class with a configuration near the limit but no recorded rows would be judged by the estimate."""
    others = {v.kernel_class for t in all_tasks() if t.impl == "triton" for v in variants_for(t.op, "triton")} - CLASSES
    assert others and not any(record_resources.triton_suspects(classes=others))


def test_malformed_table_line_names_file_and_line(tmp_path):
    bad = tmp_path / "t.tsv"
    bad.write_text("# triton: triton 3.9.0\n" + "\t".join(resources.TRITON_COLUMNS) + "\ngemm_fp16\tpipelined\n")
    with pytest.raises(ValueError, match=r"t\.tsv:3: expected 7"):
        resources.read_triton_table(bad)


@pytest.mark.compiler
@pytest.mark.skipif(triton_unavailable() is not None, reason="Triton cannot compile here")
def test_recorded_rows_and_shared_figures_reproduce_with_the_installed_triton():
    """One over-limit row and one that fits reproduce; sm_120 allocates as sm_86, grouped = pipelined,
    bf16 = fp16 and SPLIT_K do not change the allocation (the sharing rules the recorder relies on)."""
    if record_resources.triton_version() != _VERSION:
        pytest.skip(f"installed {record_resources.triton_version()!r} is not the recorded {_VERSION!r}")
    rows = [k for k in TABLE if k[0] == "flash_prefill" and k[3] == "sm_86"]
    over = next(k for k in rows if TABLE[k] > resources.TRITON_LIMIT[86])
    fits = next(k for k in rows if TABLE[k] <= resources.TRITON_LIMIT[86])
    sources = [render(*_config(k)) for k in (over, fits)]
    task, v, params = _config(over)
    sources.append(render(make_task(task.op, "triton", "rtx_5090", task.dtype, task.shape_dict()), v, params))
    gemm = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64, "NUM_WARPS": 4, "NUM_STAGES": 3}
    fp16, bf16 = (make_task("gemm_fp16", "triton", "a100", d, {"M": 4096, "N": 4096, "K": 4096}) for d in ("fp16", "bf16"))
    sources += [render(fp16, variant("gemm", "pipelined", "triton"), gemm),
                render(bf16, variant("gemm", "grouped", "triton"), {**gemm, "GROUP_M": 16}),
                render(fp16, variant("gemm", "split_k", "triton"), {**gemm, "SPLIT_K": 2}),
                render(fp16, variant("gemm", "split_k", "triton"), {**gemm, "SPLIT_K": 16})]
    got = triton_shared(sources, jobs=2)
    assert got[:3] == [TABLE[over], TABLE[fits], TABLE[over]]
    assert compile_triton(sources[1:2], jobs=1)[0].shared == TABLE[fits]   # = triton.compile(...).metadata.shared
    assert got[3] == got[4] > 0 and got[5] == got[6] > 0


@pytest.mark.skipif(triton_unavailable() is not None, reason="Triton is not usable here")
def test_check_of_a_subset_is_refused_as_usage(capsys):
    """`--check` compares a fresh recording of every covered class with the table: a subset would always differ."""
    from generator.__main__ import main
    assert main(["record-resources", "--triton", "--check", "--classes", "conv"]) == 2
    assert "leave out --classes" in capsys.readouterr().err


def test_a_table_key_is_its_row_whatever_the_cached_task_part_held_before():
    """triton_key's task part is cached per (task, constants): every row's key is the row, asked again after keys of
    other bound constants and another configuration of the same task."""
    for k in list(TABLE)[::5]:
        task, v, params = _config(k)
        constants = tuple(kv.split("=")[0] for kv in k[4].split(",") if kv)
        assert resources.triton_key(task, v, params, ())[4] == ""
        assert resources.triton_key(task, v, params, constants) == k
        tile = next(n for n in v.params if n not in resources.PLACEMENT)
        other = resources.triton_key(task, v, {**params, tile: -1}, constants)
        assert other[:5] == k[:5] and f"{tile}=-1" in other[5]
        assert resources.triton_key(task, v, params, constants) == k
