"""Register launch failures: claimed only from ptxas's recorded figures (generator/catalog/resources.tsv)."""
import pytest

from generator.catalog.hardware import GPUS
from generator.kernels import render
from generator.catalog import resources
from generator.kernels import record_resources
from generator.kernels.compilers import nvcc_path
from generator.catalog.tasks import make_task
from generator.catalog.variants import launch_limits, register_suspect, variant, variants_for

_VERSION, TABLE = resources.read_table()


def _config(k):
    op, tag, dtype, arch, shape, params = k
    gpu = next(g for g in GPUS.values() if g.arch == arch)
    task = make_task(op, "cuda", gpu.name, dtype, {a: int(b) for a, b in (kv.split("=") for kv in shape.split(","))})
    v = next(x for x in variants_for(op, "cuda") if x.tag == tag)
    values = dict(kv.split("=") for kv in params.split(","))
    return task, v, {name: type(choices[0])(values[name]) for name, choices in v.params.items()}, gpu


def test_table_records_tool_version_and_both_outcomes():
    assert _VERSION.startswith("Cuda compilation tools, release")
    over = [k for k, u in TABLE.items() if u.registers * u.threads > 65536]
    assert over and len(over) < len(TABLE)     # some suspects are really refused, most fit


def test_a_register_refusal_is_claimed_exactly_where_the_record_exceeds_and_quotes_it():
    for k, use in list(TABLE.items())[::7]:
        task, v, params, gpu = _config(k)
        reason = launch_limits(v, params, gpu, task.dtype, task)
        if use.registers * use.threads > gpu.regs_per_sm:
            assert reason == (f"too many resources requested for launch: {use.registers} registers x "
                              f"{use.threads} threads > {gpu.regs_per_sm} per block"), k
        else:
            assert reason is None or "registers" not in reason, (k, reason)


def test_launch_bounds_kernels_are_never_refused_for_registers():
    task = make_task("gemm_fp16", "cuda", "h100", "fp16", {"M": 4096, "N": 4096, "K": 4096})
    v = variant("gemm", "wgmma_tma", "cuda")
    suspects = [p for p in v.all_params() if register_suspect(v, p, GPUS["h100"], "fp16", task)]
    assert suspects and "__launch_bounds__" in render(task, v, suspects[0]).text
    assert all("registers" not in (launch_limits(v, p, "h100", "fp16", task) or "") for p in suspects)


def test_parse_ptxas_maps_namespaces_by_their_mangled_length():
    out = ("ptxas info    : Compiling entry function '_ZN5ks_1221kern' for 'sm_90a'\n"
           "    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
           "ptxas info    : Used 96 registers, used 1 barriers, 264 bytes smem, 400 bytes cmem[0]\n"
           "ptxas info    : Compiling entry function '_ZN4ks_121kern' for 'sm_90a'\n"
           "ptxas info    : Used 40 registers, used 0 barriers\n")
    got = record_resources.parse_ptxas(out, 13)
    assert got[12] == (96, 8, 264) and got[1] == (40, 0, 0) and got[2] == (0, 0, 0)


def test_malformed_table_line_names_file_and_line(tmp_path):
    bad = tmp_path / "r.tsv"
    bad.write_text("# nvcc: x\n" + "\t".join(resources.COLUMNS) + "\nrmsnorm\tnaive\n")
    with pytest.raises(ValueError, match=r"r\.tsv:3: expected 10"):
        resources.read_table(bad)


@pytest.mark.compiler
@pytest.mark.skipif(nvcc_path() is None, reason="nvcc not found")
def test_recorded_rows_reproduce_with_the_installed_ptxas(tmp_path):
    if record_resources.tool_version() != _VERSION:
        pytest.skip(f"installed nvcc {record_resources.tool_version()!r} is not the recorded {_VERSION!r}")
    over = [k for k, u in TABLE.items() if u.registers * u.threads > 65536]
    fits = [k for k, u in TABLE.items() if u.registers * u.threads <= 65536]
    for k in (over[0], fits[-1]):
        task, v, params, _gpu = _config(k)
        batch = [(task, v, params, render(task, v, params))]
        assert record_resources._measure(batch, tmp_path)[0] == TABLE[k], k
