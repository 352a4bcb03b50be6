"""Token figures of the training views on generated folders (issue #17): per view, chars and tokens per row (mean,
p50, p90, max) and the share of rows fitting 32K / 128K tokens, counted by generator.tokens; the source rows
(sessions, and each agent's whole chat of an episode) for comparison.

    PYTHONPATH=. python bench/view_tokens.py out/kernelinfer out/kernelswarm [--window 32768] [--every N]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import orjson

from generator.kernelswarm import agent_view, agent_turns as views_agent_turns, transitions as views_transitions
from generator import tokens
from generator.kernelinfer import steps as views_steps


def _rows(folder: Path, every: int):
    with open(_merged(folder), "rb") as f:
        for n, line in enumerate(f):
            if n % every == 0:
                yield orjson.loads(line)


def _merged(folder: Path) -> Path:
    return next(folder / name for name in ("sessions.jsonl", "episodes.jsonl") if (folder / name).exists())


def _whole_chats(episode: dict):
    """Each speaking agent's unwindowed chat (what the card's old helper would hand a trainer)."""
    task = agent_view.task_text(episode)
    for agent in agent_view.speakers(episode):
        exchanges, _ = agent_view.chat(episode, agent["id"])
        turns = [agent_view.system_turn(episode, agent), {"role": "user", "content": task}]
        for ex in exchanges:
            turns += [{"role": "user", "content": agent_view.SEPARATOR.join(ex.user) or agent_view.NEXT},
                      {"role": "assistant", "content": ex.assistant}]
        yield {"messages": turns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernelinfer", type=Path)
    parser.add_argument("kernelswarm", type=Path)
    parser.add_argument("--window", type=int, default=32_768)
    parser.add_argument("--every", type=int, default=1, help="use every Nth source row (default: all)")
    args = parser.parse_args()
    w, every = args.window, args.every
    report = {
        "sessions": tokens.token_stats(_rows(args.kernelinfer, every)),
        "steps": tokens.token_stats(r for s in _rows(args.kernelinfer, every)
                                    for r in views_steps.rows(s, window_tokens=w)),
        "agent_chats_unwindowed": tokens.token_stats(c for e in _rows(args.kernelswarm, every)
                                                     for c in _whole_chats(e)),
        "agent_turns": tokens.token_stats(r for e in _rows(args.kernelswarm, every)
                                          for r in views_agent_turns.rows(e, window_tokens=w)),
        "transitions": tokens.token_stats(r for e in _rows(args.kernelswarm, every)
                                          for r in views_transitions.rows(e, window_tokens=w)),
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
