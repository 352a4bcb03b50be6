"""`python -m generator catalog [--json | --markdown]`: the GPUs, the ops and the roofline of every task.

Plain output is for reading; `--json` is one document for tools (keys `gpus`, `ops`, `tasks`, each task with
`roofline_ms`); `--markdown` prints the tables the README shows, so the README is generated, never typed.
"""
from __future__ import annotations

import argparse
import sys

import orjson

from generator.catalog.hardware import GPUS, GPU
from generator.catalog.ops import OPS, Op, shape_label
from generator.catalog.perf import roofline_ms
from generator.catalog.tasks import Task
from generator.catalog.variants import variants_for


def add_arguments(parser: argparse.ArgumentParser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON document: gpus, ops, tasks (with roofline_ms)")
    fmt.add_argument("--markdown", action="store_true", help="markdown tables for the README")


def _gpu_doc(g: GPU) -> dict:
    return {"name": g.name, "display": g.display, "arch": g.arch, "cc": g.cc, "sms": g.sms, "clock_ghz": g.clock_ghz,
            "dram_gbps": g.dram_gbps, "l2_mb": g.l2_mb, "tc_tflops": dict(g.tc_tflops), "fp32_tflops": g.fp32_tflops,
            "fp16_cuda_tflops": g.fp16_cuda_tflops, "smem_static_max": g.smem_static_max,
            "smem_dyn_max": g.smem_dyn_max, "smem_per_sm": g.smem_per_sm, "regs_per_sm": g.regs_per_sm,
            "max_threads_per_sm": g.max_threads_per_sm, "max_blocks_per_sm": g.max_blocks_per_sm,
            "features": sorted(g.features), "sources": dict(g.sources)}


def _op_doc(op: Op) -> dict:
    return {"name": op.name, "family": op.family, "kernel_class": op.kernel_class, "impls": list(op.impls),
            "dtypes": list(op.dtypes), "shapes": list(op.shapes), "desc": op.desc,
            "signature": {impl: op.signature(impl) for impl in op.impls},
            "variants": {impl: [v.tag for v in variants_for(op.name, impl)] for impl in op.impls}}


def task_rows() -> list[dict]:
    """One row per (op, dtype, shape, gpu) with its roofline; the roofline does not depend on the impl."""
    rows = []
    for op in OPS.values():
        for shape in op.shapes:
            for dtype in op.dtypes:
                for gpu in GPUS:
                    task = Task(op.name, op.impls[0], gpu, dtype, tuple(shape.items()))
                    rows.append({"op": op.name, "dtype": dtype, "shape": shape, "gpu": gpu,
                                 "roofline_ms": round(roofline_ms(task), 6)})
    return rows


def document() -> dict:
    return {"gpus": [_gpu_doc(g) for g in GPUS.values()], "ops": [_op_doc(o) for o in OPS.values()],
            "tasks": task_rows()}


def markdown() -> str:
    """The README's catalog tables: GPUs, then one row per op with its H100 roofline range."""
    out = ["| GPU | arch | SMs | DRAM GB/s | L2 MB | FP16 TC TFLOPS | FP8 | INT8 | FP4 | smem/block (opt-in) | features |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for g in GPUS.values():
        tc = g.tc_tflops
        peak = {k: f"{tc[k]:g}" if k in tc else "-" for k in ("fp16", "fp8", "int8", "fp4")}
        out.append(f"| {g.display} | {g.arch} | {g.sms} | {g.dram_gbps:,.0f} | {g.l2_mb:g} | {peak['fp16']} | "
                   f"{peak['fp8']} | {peak['int8']} | {peak['fp4']} | "
                   f"{g.smem_dyn_max // 1024} KB | {', '.join(sorted(g.features))} |")
    out += ["", "| op | family | kernel class | impls | dtypes | shapes | example shape | H100 roofline (ms) |",
            "|---|---|---|---|---|---|---|---|"]
    for op in OPS.values():
        roofs = [roofline_ms(Task(op.name, op.impls[0], "h100", op.dtypes[0], tuple(s.items()))) for s in op.shapes]
        out.append(f"| {op.name} | {op.family} | {op.kernel_class} | {', '.join(op.impls)} | {', '.join(op.dtypes)} "
                   f"| {len(op.shapes)} | `{shape_label(op.shapes[0])}` | {min(roofs):.4f} - {max(roofs):.4f} |")
    return "\n".join(out) + "\n"


def plain() -> str:
    out = ["GPUs"]
    for g in GPUS.values():
        out.append(f"  {g.name:10s} {g.display:24s} {g.arch:7s} {g.sms:4d} SMs  {g.dram_gbps:6.0f} GB/s  "
                   f"fp16 TC {g.tc_tflops['fp16']:6.1f} TFLOPS  features: {', '.join(sorted(g.features))}")
    out.append(f"\nOps ({len(OPS)})")
    for op in OPS.values():
        out.append(f"  {op.name:20s} {op.family:9s} {op.kernel_class:12s} {'/'.join(op.impls):12s} "
                   f"{'/'.join(op.dtypes):10s} {op.desc}")
        for impl in op.impls:
            out.append(f"      {impl}: {op.signature(impl)}".replace("\n", "\n" + " " * (len(impl) + 8)))
    out.append("\nRoofline (ms) per (op, dtype, shape), one column per GPU: " + "  ".join(GPUS))
    rows = task_rows()
    for i in range(0, len(rows), len(GPUS)):
        group = rows[i:i + len(GPUS)]
        head = group[0]
        cells = "  ".join(f"{r['roofline_ms']:9.4f}" for r in group)
        out.append(f"  {head['op']:20s} {head['dtype']:5s} {shape_label(head['shape']):34s} {cells}")
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(document()) + b"\n")
    elif args.markdown:
        sys.stdout.write(markdown())
    else:
        sys.stdout.write(plain())
    return 0
