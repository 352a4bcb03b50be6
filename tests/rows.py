"""Small hand-written rows of each schema, for tests that need a valid row to break, and simulated episodes of
chosen tasks (not a test module)."""
from __future__ import annotations


def task_row(**changes) -> dict:
    row = {"task_id": "rmsnorm_cuda_h100_fp16_0", "op": "rmsnorm", "impl": "cuda", "gpu": "h100", "arch": "sm_90a",
           "dtype": "fp16", "shape": {"T": 1, "H": 4096}, "signature": "__global__ void rmsnorm_kernel(...)",
           "desc": "RMSNorm", "baseline_ms": 0.02, "roofline_ms": 0.005}
    return {**row, **changes}


def session_row() -> dict:
    trace = [{"step": 1, "tag": "naive", "kind": "new_variant", "params": {"NUM_THREADS": 128}, "status": "ok",
              "time_ms": 0.01, "kept": True},
             {"step": 2, "tag": "vectorized", "kind": "new_variant", "params": {"VEC": 8}, "status": "compile_error",
              "time_ms": None, "kept": False}]
    messages = [{"role": "system", "content": "rules"}, {"role": "user", "content": "task"}]
    for i, step in enumerate(trace):
        messages += [{"role": "assistant", "content": "__global__ void k() {}"},
                     {"role": "user", "content": f"[t+0:0{i}:00] RESULT {step['status']}\n..."}]
    row = {k: v for k, v in task_row().items() if k != "task_id"}
    return {"session_id": "s0", **row, "best": {"step": 1, "time_ms": 0.01, "speedup": 2.0}, "attempts": 1,
            "elapsed_s": 120.0, "elapsed_hms": "0:02:00", "num_steps": 2, "messages": messages, "trace": trace}


def episode_row() -> dict:
    row = {k: v for k, v in task_row().items() if k not in ("task_id", "signature", "desc")}
    messages = [
        {"role": "lead", "agent": "lead", "kind": "plan", "content": "plan", "t": 1.0, "reward": 0.0},
        {"role": "lead", "agent": "lead", "kind": "dispatch", "content": "go", "t": 2.0, "reward": 0.0,
         "to": "a01", "subtask": "implement naive", "variant": "naive"},
        {"role": "worker", "agent": "a01", "kind": "candidate", "content": "__global__", "t": 3.0, "reward": 0.0,
         "variant": "naive", "params": {"NUM_THREADS": 128}},
        {"role": "env", "agent": "env", "kind": "result", "content": "ok", "t": 4.0, "reward": 1.0, "to": "a01",
         "variant": "naive", "status": "ok", "time_ms": 0.01, "ref": 2},
        {"role": "lead", "agent": "lead", "kind": "verdict", "content": "done", "t": 5.0, "reward": 0.25,
         "variant": "naive", "params": {"NUM_THREADS": 128}, "time_ms": 0.01, "ref": 3},
    ]
    agents = [{"id": "lead", "role": "lead", "skill": 1.0, "tries": 0, "kept": 0, "best_ms": None},
              {"id": "a01", "role": "worker", "skill": 0.9, "tries": 1, "kept": 1, "best_ms": 0.01},
              {"id": "a02", "role": "worker", "skill": 1.1, "tries": 0, "kept": 0, "best_ms": None}]
    return {"episode_id": "rmsnorm_h100_T=1,H=4096_dispatch_5", "scenario": "dispatch", "n_agents": 2, **row,
            "best_ms": 0.01, "speedup": 2.0, "elapsed_s": 5.0, "agents": agents, "num_messages": 5,
            "messages": messages}


def simulated_episodes(tasks, seed: int, per_task: int) -> list[dict]:
    """`per_task` episodes of every scenario for each (op, impl, gpu) of `tasks` (the op's first dtype and shape),
    with an episode id."""
    from generator.catalog.ops import OPS
    from generator.catalog.tasks import make_task
    from generator.kernelswarm.episode import SCENARIOS, simulate_episode
    from generator.sim.seeding import rng_for

    out = []
    for i, scenario in enumerate(SCENARIOS):
        for j, (op, impl, gpu) in enumerate(tasks):
            task = make_task(op, impl, gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
            for k in range(per_task):
                row = simulate_episode(task, scenario, rng_for(seed, i, 3 * j + k))
                out.append({"episode_id": f"x_{scenario}_{row['num_messages']}", **row})
    return out
