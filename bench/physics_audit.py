"""Physics audit of a generated kernelinfer folder: the acceptance figures of issue #15, measured from the rows.

Why a script and not a test: it reads a full default folder (~1.3 GB) and prints figures to compare against the
bands in docs/calibration.md; the tests pin the model itself. Usage:

    python -m generator kernelinfer --out /tmp/phys_ki --num-proc 2
    python bench/physics_audit.py /tmp/phys_ki [--json out.json]

Exit 0 when every acceptance check holds, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator.catalog import calibration, perf
from generator.sim import correctness  # noqa: E402
from generator.catalog.hardware import GPUS  # noqa: E402
from generator.catalog.ops import OPS  # noqa: E402
from generator.catalog.tasks import make_task  # noqa: E402
from generator.kernels import triton_dot  # noqa: E402

SEED_MIX = {"ok": 0.845, "compile_error": 0.125, "wrong_result": 0.029}   # the seed card's step-status mix
_ERR = re.compile(r"max_abs_err = ([0-9.eE+-]+)")
# What a typo-class compile error prints (nvcc front end on a misspelt name, a dropped ';', a type clash, a
# wrong template argument; Triton's CompilationError): an edit mistake, not a consequence of a constant.
_TYPO = ("is undefined", 'expected a ";"', "a value of type", "argument list", "template",
         "CompilationError")


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def audit(folder: Path) -> dict:
    naive_fp32_frac: dict[str, float] = defaultdict(float)
    max_bw = (0.0, "")
    max_tc: dict[str, float] = defaultdict(float)    # per GPU: the highest ok fraction of tensor-core peak
    exact_nonzero = exact_ok = sampler_float = 0
    tune_compile = tune_typo = tune_steps = 0
    status = Counter()
    steps, hours = [], []
    retime = []                  # |t2 / t1 - 1| of consecutive re-times of one source, kernels >= 0.05 ms
    revert_margin = []           # (best / revert time - 1, the noise bound) for reverts that set a new best
    seconds = defaultdict(list)  # per step kind: its wall seconds (think + machine)
    with open(folder / "sessions.jsonl", "rb") as f:
        for line in f:
            row = orjson.loads(line)
            task = make_task(row["op"], row["impl"], row["gpu"], row["dtype"], row["shape"])
            op = row["op"]
            if op == "gemm_fp16" and row["impl"] == "cuda":
                frac = OPS[op].flops(row["shape"], row["dtype"]) / (row["baseline_ms"] * 1e-3) / (
                    GPUS[row["gpu"]].fp32_tflops * 1e12)
                naive_fp32_frac[row["gpu"]] = max(naive_fp32_frac[row["gpu"]], frac)
            steps.append(row["num_steps"])
            hours.append(row["elapsed_s"] / 3600)
            msgs = row["messages"]
            seen: dict[tuple, float] = {}
            running = float("inf")
            previous_stamp = 0
            for s in row["trace"]:
                i = s["step"]
                text = msgs[2 * i + 1]["content"]
                stamp = _stamp(text)
                seconds[s["kind"]].append(stamp - previous_stamp)
                previous_stamp = stamp
                status[s["status"]] += 1
                if s["kind"] == "tune":
                    tune_steps += 1
                    if s["status"] == "compile_error":
                        tune_compile += 1
                        # (Triton's refusal of an 8-bit dot's K block is a CompilationError the tuned BLOCK_K causes)
                        tune_typo += any(t in text for t in _TYPO) and triton_dot.REFUSAL not in text
                t = s["time_ms"]
                if t is None:
                    continue
                a = perf.achieved(task, t)
                if a["bandwidth_frac"] > max_bw[0]:
                    max_bw = (a["bandwidth_frac"], row["session_id"])
                if OPS[op].kernel_class in perf.TC_CLASSES:
                    max_tc[row["gpu"]] = max(max_tc[row["gpu"]], a["compute_frac"])
                m = _ERR.search(text)
                if op in correctness.EXACT_OPS:
                    exact_ok += 1
                    exact_nonzero += m is not None and float(m.group(1)) != 0.0
                if op in correctness.ID_OPS and m is not None and OPS[op].family == "sampler":
                    sampler_float += 1
                key = (s["tag"], tuple(sorted(s["params"].items())))
                if key in seen and t >= 0.05:
                    retime.append(abs(t / seen[key] - 1))
                seen[key] = t
                if s["kind"] == "revert" and t < running:
                    revert_margin.append((running / t - 1, calibration.noise_bound(t)))
                running = min(running, t)
    n = sum(status.values())
    mix = {k: status[k] / n for k in SEED_MIX}
    beyond = [m for m, bound in revert_margin if m > bound * 1.0001 + 1e-4]
    return {
        "naive_gemm_fp16_cuda_max_frac_of_fp32_peak": dict(naive_fp32_frac),
        "max_ok_bandwidth_frac": max_bw[0], "max_ok_bandwidth_session": max_bw[1],
        "max_ok_tensor_core_frac": dict(max_tc),
        "exact_ok_steps": exact_ok, "exact_ok_steps_nonzero_err": exact_nonzero,
        "sampler_ok_steps_float_err": sampler_float,
        "tune_steps": tune_steps, "tune_compile_errors": tune_compile, "tune_typo_compile_errors": tune_typo,
        "retime_pairs_ge_50us": len(retime), "retime_median": statistics.median(retime) if retime else 0.0,
        "retime_p90": _quantile(retime, 0.9), "retime_max": max(retime, default=0.0),
        "reverts_new_best": len(revert_margin), "reverts_beyond_noise": len(beyond),
        "revert_max_gain": max((m for m, _ in revert_margin), default=0.0),
        "step_seconds_median": {k: statistics.median(v) for k, v in sorted(seconds.items())},
        "sessions": len(steps), "steps_mean": statistics.mean(steps), "hours_mean": statistics.mean(hours),
        "status_mix": mix,
    }


def _stamp(text: str) -> int:
    h, m, s = text[3:text.index("]")].split(":")
    return 3600 * int(h) + 60 * int(m) + int(s)


def failures(r: dict) -> list[str]:
    out = []
    for gpu, frac in r["naive_gemm_fp16_cuda_max_frac_of_fp32_peak"].items():
        if frac > 0.06:
            out.append(f"naive gemm_fp16 on {gpu}: {frac:.1%} of FP32 peak > 6 %")
    if r["max_ok_bandwidth_frac"] > calibration.DRAM_CEILING + 1e-9:
        out.append(f"ok time at {r['max_ok_bandwidth_frac']:.1%} of peak DRAM bandwidth > 92 %")
    for gpu, frac in r["max_ok_tensor_core_frac"].items():
        if frac > calibration.TC_CEILING[gpu] + 1e-9:
            out.append(f"ok time on {gpu} at {frac:.1%} of tensor-core peak > {calibration.TC_CEILING[gpu]:.0%}")
    if r["exact_ok_steps_nonzero_err"]:
        out.append(f"{r['exact_ok_steps_nonzero_err']} ok steps of exact ops report a nonzero error")
    if r["sampler_ok_steps_float_err"]:
        out.append(f"{r['sampler_ok_steps_float_err']} sampler ok steps report a float max_abs_err")
    if r["tune_typo_compile_errors"]:
        out.append(f"{r['tune_typo_compile_errors']} tune compile errors are typo-class")
    if r["retime_median"] > 0.01:
        out.append(f"median re-time spread {r['retime_median']:.2%} > 1 %")
    if r["reverts_beyond_noise"]:
        out.append(f"{r['reverts_beyond_noise']} reverts beat the best by more than the noise")
    for k, seed in SEED_MIX.items():
        if abs(r["status_mix"][k] - seed) > 0.02:
            out.append(f"status {k}: {r['status_mix'][k]:.1%} vs seed {seed:.1%} (+/- 2 points)")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    if not (a.folder / "sessions.jsonl").is_file():
        print(f"{a.folder}: no sessions.jsonl (generate a kernelinfer folder first)", file=sys.stderr)
        return 2
    r = audit(a.folder)
    print(json.dumps(r, indent=1))
    if a.json:
        a.json.write_text(json.dumps(r, indent=1) + "\n")
    bad = failures(r)
    for line in bad:
        print("FAIL:", line)
    print("all acceptance checks hold" if not bad else f"{len(bad)} acceptance checks fail")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
