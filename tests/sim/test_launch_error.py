"""`launch_error`: the kernel compiled but the launch was refused; kept apart from what the compiler refuses."""
import pytest

from generator.check import qa
from generator.sim import rewards
from generator.catalog.hardware import GPUS
from generator.kernels import render
from generator.kernels.faults import expect_clean
from generator.check.schemas import compiled
from generator.sim.seeding import rng_for
from generator.kernelinfer.session import simulate_session
from generator.kernelinfer.stats import STATUSES
from generator.catalog.tasks import make_task
from generator.catalog.variants import launch_limits, variants_for
from generator.kernelinfer.checks import CHECKS as KI_CHECKS

TASK = make_task("flash_prefill", "cuda", "h100", "fp16", {"B": 1, "H": 32, "S": 4096, "D": 128})


@pytest.fixture(scope="module")
def row():
    return simulate_session(TASK, rng_for(0, 1, 0))


def test_a_refused_launch_is_a_launch_error_and_a_compiler_refusal_is_not():
    statuses = set()
    for v in variants_for(TASK.op, "cuda"):
        for params in v.all_params()[::5]:
            reason = launch_limits(v, params, GPUS["h100"], "fp16", TASK)
            if reason is None:
                continue
            expected = expect_clean(render(TASK, v, params), TASK, v, params)
            statuses.add(expected.status)
            assert expected.status == ("compile_error" if reason.startswith("ptxas") else "launch_error"), reason
    assert "launch_error" in statuses


def test_session_reports_launch_error_in_trace_feedback_and_prompt(row):
    steps = [s for s in row["trace"] if s["status"] == "launch_error"]
    assert steps and all(s["time_ms"] is None for s in steps)
    feedback = [m["content"] for m in row["messages"] if m["role"] == "user"][1:]
    launch = [f for f in feedback if " RESULT launch_error\n" in f]
    assert len(launch) == len(steps) and all("launch: FAILED" in f for f in launch)
    assert "launch_error" in row["messages"][0]["content"]
    report = qa.run_checks(KI_CHECKS, [row], "b", id_field="session_id")
    assert not qa.failures(report)
    assert compiled("session").is_valid(row)


def test_reward_and_stats_know_launch_error():
    assert rewards.result_reward("launch_error", None, 1.0) == rewards.COMPILE_ERROR == -0.1
    assert "launch_error" in STATUSES and "launch_error" in rewards.RESULT_STATUSES


def test_each_refusal_reports_the_runtime_error_it_is():
    """A register refusal is cudaErrorLaunchOutOfResources ("too many resources requested for launch"), a block
    over 1024 threads cudaErrorInvalidConfiguration, dynamic shared memory over the cap cudaErrorInvalidValue
    ("invalid argument"), each printed as cudaGetErrorString's text alone (0.6.7 added the figures behind it, which
    the runtime never prints). 0.6.1 printed "invalid configuration argument" over every register refusal (its
    reason names threads)."""
    from generator.catalog.resources import read_table
    from generator.check import reports
    from generator.sim import feedback
    refused = [(k, use) for k, use in read_table()[1].items()
               if use.registers * use.threads > next(g for g in GPUS.values() if g.arch == k[3]).regs_per_sm]
    for (op, tag, dtype, arch, shape, params), _use in refused[:3]:
        gpu = next(g for g in GPUS.values() if g.arch == arch)
        task = make_task(op, "cuda", gpu.name, dtype, {a: int(b) for a, b in (kv.split("=") for kv in shape.split(","))})
        v = next(x for x in variants_for(op, "cuda") if x.tag == tag)
        values = dict(kv.split("=") for kv in params.split(","))
        full = {name: type(choices[0])(values[name]) for name, choices in v.params.items()}
        source = render(task, v, full)
        text = feedback.feedback_text(task, expect_clean(source, task, v, full))
        assert text.endswith("RuntimeError: CUDA error: too many resources requested for launch"), text
        config = (tag, full, source.text)       # the step's configuration: what the report is held to
        assert reports.problem(task, "launch_error", text, None, 1.0, None, config) is None
        lie = text.replace("CUDA error: too many resources requested for launch", "CUDA error: invalid argument")
        assert reports.problem(task, "launch_error", lie, None, 1.0, None) is None      # a real error string
        assert "whose launch gets 'CUDA error: too many" in reports.problem(task, "launch_error", lie, None, 1.0,
                                                                             None, config)
    assert len(refused) >= 3
