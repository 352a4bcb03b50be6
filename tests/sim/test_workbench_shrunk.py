"""The back-off after a launch refusal (Workbench.shrunk) lowers the figure over the cap (the engineer works it out
from the source; a CUDA report prints only the runtime's error string): 0.6.4's engineer changed only NUM_WARPS (or
SPLITS, VEC) after "N bytes of dynamic shared memory > cap" and was refused again with the same figures (95 refusals
in 83 sessions of the default folder: row audit)."""
import pytest

from generator.catalog.tasks import all_tasks
from generator.kernelinfer.session import simulate_session
from generator.sim.seeding import rng_for
from generator.sim.workbench import Workbench, task_id



def _refusals(tasks):
    """(bench, tag, params, refusal) of every configuration refused at launch, over every legal variant of `tasks`."""
    for task in tasks:
        wb = Workbench(task)
        for v in wb.variants:
            if wb.legal[v.tag]:
                for p in wb.grid(v.tag):
                    refused = wb.refusal(v.tag, tuple(p.items()))
                    if refused is not None:
                        yield wb, v.tag, p, refused


def _changed(params: dict, other: dict) -> list[str]:
    return [k for k in params if params[k] != other[k]]


def test_every_back_off_launches_or_lowers_the_refused_figure():
    caps, offered, refusals = set(), 0, 0
    for wb, tag, params, refused in _refusals(all_tasks()[::7]):
        refusals += 1
        order = sorted(params, key=lambda n: ("STAGES" not in n, "BLOCK" not in n, n))
        last = -1
        for smaller in wb.shrunk(tag, params):
            (name,) = _changed(params, smaller)         # one parameter, at its next smaller value, stages first
            below = [v for v in wb.by_tag[tag].params[name] if v < params[name]]
            assert below and smaller[name] == max(below) and order.index(name) > last
            last = order.index(name)
            hit = wb.refusal(tag, tuple(smaller.items()))
            assert hit is None or (hit.cap == refused.cap and hit.figure < refused.figure
                                   and hit.text != refused.text), (task_id(wb.task), tag, params, smaller, hit)
            caps.add(refused.cap)
            offered += 1
    assert refusals > 500 and offered > 300
    assert {"optin_smem", "triton_smem", "registers"} <= caps


def test_after_a_dynamic_smem_refusal_the_engineer_does_not_change_only_the_warps():
    """The audit's example: tma_pipeline's dynamic bytes are stages x BLOCK_N x D, whatever NUM_WARPS or SPLITS."""
    task = next(t for t in all_tasks() if task_id(t) == "flash_decode_cuda_h100_bf16_ecc5b0b1")
    wb = Workbench(task)
    params = {"BLOCK_N": 128, "NUM_STAGES": 4, "NUM_WARPS": 8, "SPLITS": 4}
    assert wb.refusal("tma_pipeline", tuple(params.items())).text.startswith("invalid argument: 262144 bytes")
    assert [_changed(params, p) for p in wb.shrunk("tma_pipeline", params)] == [["NUM_STAGES"], ["BLOCK_N"]]
    assert wb.shrunk("tma_pipeline", {**params, "NUM_STAGES": 2}) == []        # it launches: nothing to cure


@pytest.mark.parametrize("session_id", ["flash_decode_cuda_a10_fp16_71b1abe2", "swa_decode_cuda_a10_fp16_1980e33f",
                                        "swa_decode_cuda_h100_bf16_4c167ded", "mla_decode_triton_rtx_a6000_fp16_7ddf5d8b"])
def test_a_session_never_repeats_a_refusal_it_has_read(session_id):
    """The refusals the row audit counted, each keyed by the figure over its cap (a CUDA report prints only the
    runtime's error string; the figure is the step's configuration's, `Workbench.refusal`)."""
    task = next(t for t in all_tasks() if task_id(t) == session_id)
    wb = Workbench(task)
    refused = 0
    for index in range(3):
        row = simulate_session(task, rng_for(0, 1, index))
        seen = set()
        for step in row["trace"]:
            hit = wb.refusal(step["tag"], tuple(step["params"].items())) if step["status"] == "launch_error" else None
            if hit:
                key = (step["tag"], hit.cap, hit.figure)
                assert key not in seen, (session_id, index, step)
                seen.add(key)
        refused += len(seen)
    assert refused
