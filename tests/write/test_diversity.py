"""stats.json `diversity` (`generator.write.diversity`): shard digests merged in the final step give the figures
a direct reading of the rows gives (here: a plain set-based reading, the definitions written out), whatever the
split into shards; a generated folder's stats.json and `bench/diversity_audit.py` agree with it."""
from __future__ import annotations

import importlib.util
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import orjson
import pytest

from generator.check.validate import validate_paths
from generator.registry import DATASETS
from generator.write import diversity

BENCH = Path(__file__).resolve().parents[2] / "bench" / "diversity_audit.py"


def _median(values):
    return float(statistics.median(values)) if values else 0.0


def _changed(before: str, after: str) -> int:
    old, new = before.split("\n"), after.split("\n")
    if len(old) == len(new):
        return sum(a != b for a, b in zip(old, new))
    return sum((Counter(new) - Counter(old)).values())


def kernelinfer_reading(rows: list[dict]) -> dict:
    """Issue #16's kernelinfer figures, read from whole rows with sets of texts."""
    owners, masked_owners = defaultdict(set), defaultdict(set)
    group = [(r["op"], r["impl"], r["gpu"]) for r in rows]
    sources, masked, pairs, tune = [], [], set(), []
    for i, row in enumerate(rows):
        srcs = [m["content"] for m in row["messages"] if m["role"] == "assistant"]
        ok = set()
        previous = None
        for src, t in zip(srcs, row["trace"]):
            owners[src].add(i)
            if t["status"] == "ok":
                ok.add(diversity.mask_digits(src))
                pairs.add((i, t["tag"]))
            if t["kind"] == "tune" and previous is not None:
                tune.append(_changed(previous, src))
            previous = src if t["kind"] == "tune" else None
        for m in ok:
            masked_owners[m].add(i)
        sources.append(srcs)
        masked.append(ok)
    turns = sum(map(len, sources))
    same_group = [{j for j, g in enumerate(group) if g == group[i]} for i in range(len(rows))]
    return {
        "assistant_turns": turns, "distinct_sources": len(owners), "distinct_masked_ok": len(masked_owners),
        "ok_session_variants": len(pairs), "masked_ok_per_pair": len(masked_owners) / len(pairs) if pairs else 0.0,
        "cross_session_turn_share": sum(len(owners[s]) > 1 for srcs in sources for s in srcs) / turns,
        "median_private_masked_ok": _median([sum(len(masked_owners[m]) == 1 for m in ok) / len(ok)
                                             for ok in masked if ok]),
        "median_same_task_overlap": _median([sum(bool(owners[s] & same_group[i] - {i}) for s in srcs) / len(srcs)
                                             for i, srcs in enumerate(sources) if len(same_group[i]) > 1 and srcs]),
        "median_tune_changed_lines": _median(tune),
    }


def kernelswarm_reading(rows: list[dict]) -> dict:
    """Issue #16's kernelswarm figures: candidates, ok ones by their env result (per agent, in order, by variant)."""
    sources, masked, triples, candidates = set(), set(), set(), 0
    for i, row in enumerate(rows):
        waiting = defaultdict(list)
        for msg in row["messages"]:
            if msg["kind"] == "candidate":
                candidates += 1
                sources.add(msg["content"])
                waiting[msg["agent"]].append(msg)
            elif msg["kind"] == "result":
                queue = waiting.get(msg.get("to"), [])
                cand = next((c for c in queue if c["variant"] == msg.get("variant")), None)
                if cand is not None:
                    queue.remove(cand)
                    if msg.get("status") == "ok":
                        masked.add(diversity.mask_digits(cand["content"]))
                        triples.add((i, cand["agent"], cand["variant"]))
    return {"candidates": candidates, "distinct_sources": len(sources), "distinct_masked_ok": len(masked),
            "ok_triples": len(triples), "masked_ok_per_triple": len(masked) / len(triples) if triples else 0.0}


READING = {"kernelinfer": kernelinfer_reading, "kernelswarm": kernelswarm_reading}


def _session(op: str, steps: list[tuple[str, str, str, str]]) -> dict:
    """A kernelinfer row of (source, kind, status, tag) steps."""
    messages = [{"role": "system", "content": "s"}]
    for src, *_ in steps:
        messages += [{"role": "user", "content": "u"}, {"role": "assistant", "content": src}]
    return {"op": op, "impl": "cuda", "gpu": "h100", "messages": messages,
            "trace": [{"kind": k, "status": s, "tag": t} for _src, k, s, t in steps]}


def _kernel(n: int, body: str = "x") -> str:
    return f"#define BLOCK {n}\n__global__ void k() {{\n  int a = {n} * 2;\n  {body};\n}}\n"


# shared sources across sessions (same and other ops), skeletons shared and private, tune steps that change one
# line, two lines, the digit count of a constant, and the line count
SESSIONS = [
    _session("gemm", [(_kernel(64), "new_variant", "ok", "tiled"), (_kernel(128), "tune", "ok", "tiled"),
                      (_kernel(256), "tune", "compile_error", "tiled"), (_kernel(32), "tune", "ok", "tiled"),
                      (_kernel(32, "y;\n  z"), "tune", "ok", "tiled"), (_kernel(64), "revert", "ok", "tiled")]),
    _session("gemm", [(_kernel(64), "new_variant", "ok", "tiled"), (_kernel(99, "w"), "fix", "ok", "naive")]),
    _session("softmax", [(_kernel(64), "new_variant", "wrong_result", "rows"), ("a1b22c", "new_variant", "ok", "x"),
                         ("a7b8c", "tune", "ok", "x"), ("a7b8c\nd", "tune", "ok", "x")]),
    _session("gemm", [("only mine 5", "new_variant", "ok", "v"), ("only mine 55", "tune", "ok", "v")]),
    _session("softmax", [("a1b22c", "new_variant", "compile_error", "v")]),
]


def _episode(cands: list[tuple[str, str, str, str]]) -> dict:
    """A kernelswarm row: each candidate (agent, variant, source, status) followed later by its result."""
    messages = [{"kind": "candidate", "agent": a, "variant": v, "content": src} for a, v, src, _s in cands]
    messages += [{"kind": "result", "to": a, "variant": v, "status": s} for a, v, _src, s in cands]
    return {"messages": messages}


EPISODES = [_episode([("a", "v1", "k 1", "ok"), ("a", "v1", "k 2", "ok"), ("b", "v2", "j 3", "compile_error")]),
            _episode([("a", "v1", "k 1", "ok"), ("c", "v3", "z 10", "ok")]),
            _episode([("b", "v2", "j 44", "wrong_result")])]


@pytest.mark.parametrize("dataset, rows", [("kernelinfer", SESSIONS), ("kernelswarm", EPISODES)])
@pytest.mark.parametrize("cuts", [(), (1,), (2, 3), (1, 2, 3, 4)])
def test_merged_digests_equal_a_reading_of_the_rows_whatever_the_shards(dataset, rows, cuts):
    ds = DATASETS[dataset]
    bounds = [0, *[c for c in cuts if c < len(rows)], len(rows)]
    shards = [orjson.loads(orjson.dumps(ds.diversity_digests(rows[a:b])))     # as a scale marker keeps them
              for a, b in zip(bounds, bounds[1:])]
    want = READING[dataset](rows)
    assert ds.diversity_figures(shards) == want
    if dataset == "kernelinfer":      # the rows above exercise every figure
        assert 0 < want["cross_session_turn_share"] < 1 and 0 < want["median_private_masked_ok"] < 1
        ok_steps = sum(t["status"] == "ok" for r in rows for t in r["trace"])
        assert want["median_same_task_overlap"] > 0 and want["distinct_masked_ok"] < ok_steps
        assert want["distinct_sources"] < want["assistant_turns"]
        assert want["median_tune_changed_lines"] > 1


def test_changed_lines_counts_lines_not_bytes():
    a = b"x = 1\ny = 22\nz = 3\n"
    assert diversity.changed_lines(a, a) == 0
    assert diversity.changed_lines(a, b"x = 1\ny = 23\nz = 4\n") == 2
    assert diversity.changed_lines(a, b"x = 1\ny = 2\nz = 3\n") == 1
    assert diversity.changed_lines(a, b"x = 1\nnew\ny = 22\nz = 3\n") == 1
    assert diversity.changed_lines(a, b"x = 1\n\ny = 22\nz = 3\n") == 1


def test_generated_folder_stats_and_bench_agree_with_the_rows(folder):
    ds = DATASETS[folder.name]
    rows = [orjson.loads(line) for line in (folder / ds.merged_file).read_bytes().splitlines()]
    stats = orjson.loads((folder / "stats.json").read_bytes())
    assert stats["diversity"] == READING[folder.name](rows)
    spec = importlib.util.spec_from_file_location("diversity_audit", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.figures(folder / ds.merged_file, ds.diversity_digests, ds.diversity_figures) == stats["diversity"]
    card = (folder / "README.md").read_text()
    section = card[card.index("## Diversity"):].split("\n## ")[0]
    assert f"| {stats['diversity']['distinct_sources']:,} |" in section


def test_the_validator_types_stats_diversity(generated, tmp_path):
    stats = orjson.loads((generated("kernelinfer") / "stats.json").read_bytes())
    alone = tmp_path / "stats" / "stats.json"           # no shards beside it: the document's schema alone
    alone.parent.mkdir()
    alone.write_bytes(orjson.dumps(stats))
    assert not validate_paths([alone]).findings
    stats["diversity"]["cross_session_turn_share"] = 1.5
    alone.write_bytes(orjson.dumps(stats))
    assert any("1.5" in f.message for f in validate_paths([alone]).findings)
