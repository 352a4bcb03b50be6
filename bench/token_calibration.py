"""Bytes per token of a real byte-level BPE on generated kernelinfer text: the calibration of generator/tokens.py.

Trains a BPE with the `tokenizers` package (digits in groups of at most three, as DeepSeek-V3 and Llama 3 split
them) on N sessions of one seed and counts every message of sessions of another seed; prints the mean and the
worst message's bytes per token, per training size and vocabulary, with the package version.

    PYTHONPATH=. python bench/token_calibration.py [--train 4 12] [--vocab 8000 32000] [--test 25]
"""
from __future__ import annotations

import argparse
import json

import tokenizers
from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

from generator import tokens
from generator.sim.seeding import rng_for
from generator.kernelinfer.session import simulate_session
from generator.catalog.tasks import all_tasks


def _sessions(seed: int, n: int, offset: int) -> list[dict]:
    tasks = all_tasks()
    return [simulate_session(tasks[i], rng_for(seed, 1, i))
            for i in range(offset, len(tasks), len(tasks) // n)][:n]


def _bpe(corpus: list[dict], vocab: int) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\p{N}{1,3}"), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    trainer = trainers.BpeTrainer(vocab_size=vocab, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator((m["content"] for row in corpus for m in row["messages"]), trainer)
    return tok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, nargs="+", default=[4, 12])
    parser.add_argument("--vocab", type=int, nargs="+", default=[8000, 32000])
    parser.add_argument("--test", type=int, default=25)
    args = parser.parse_args()
    texts = [m["content"] for row in _sessions(8, args.test, 5) for m in row["messages"]]
    total = sum(len(t.encode()) for t in texts)
    out = {"tokenizers": tokenizers.__version__, "test_messages": len(texts), "test_bytes": total,
           "estimate_bytes_per_token": tokens.BYTES_PER_TOKEN, "runs": []}
    for n in args.train:
        corpus = _sessions(7, n, 0)
        for vocab in args.vocab:
            counts = [len(e.ids) for e in _bpe(corpus, vocab).encode_batch(texts)]
            worst = min(len(t.encode()) / c for t, c in zip(texts, counts) if c)
            out["runs"].append({"train_sessions": n, "vocab": vocab,
                                "mean_bytes_per_token": round(total / sum(counts), 3),
                                "worst_message_bytes_per_token": round(worst, 3)})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
