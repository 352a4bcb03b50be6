"""generator.tokens never under-counts: checked against a real byte-level BPE trained offline (the `tokenizers`
package) on generated sessions, counting view rows and messages of other sessions and episodes; the same BPE
wrapped as a `transformers` tokenizer with a ChatML template renders view rows with `apply_chat_template` (no
torch) within their documented estimate."""
from __future__ import annotations

import pytest

from generator import tokens
from generator.kernelswarm import agent_turns as views_agent_turns, transitions as views_transitions
from generator.kernelinfer import steps as views_steps
from generator.sim.seeding import rng_for
from generator.kernelinfer.session import simulate_session
from generator.catalog.tasks import all_tasks

tokenizers = pytest.importorskip("tokenizers", reason="tokenizers is not installed (pip install '.[test]')")

SPECIAL = ("<|im_start|>", "<|im_end|>")


@pytest.fixture(scope="module")
def bpe():
    """A byte-level BPE like DeepSeek-V3's and Llama 3's (digits in groups of at most three, 8K merges), trained
    on four generated sessions: a small corpus makes it spend more tokens than a production tokenizer, not fewer."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tasks = all_tasks()
    corpus = [simulate_session(tasks[i], rng_for(7, 1, i)) for i in range(0, len(tasks), len(tasks) // 4)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\p{N}{1,3}"), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    trainer = trainers.BpeTrainer(vocab_size=8000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=list(SPECIAL), show_progress=False)
    tok.train_from_iterator((m["content"] for row in corpus[:4] for m in row["messages"]), trainer)
    return tok


def _real(bpe, messages) -> int:
    """Tokens of `messages` rendered with the ChatML template."""
    text = "".join(f"{SPECIAL[0]}{m['role']}\n{m['content']}{SPECIAL[1]}\n" for m in messages)
    return len(bpe.encode(text).ids)


def test_every_message_is_counted_conservatively(bpe):
    tasks = all_tasks()
    rows = [simulate_session(tasks[i], rng_for(8, 1, i)) for i in range(5, len(tasks), len(tasks) // 3)]
    # every task and feedback turn (the densest text: numbers), every 5th kernel source (they repeat by template)
    texts = [m["content"] for row in rows for k, m in enumerate(row["messages"])
             if m["role"] != "assistant" or k % 10 == 2]
    ratios = []
    for text, encoding in zip(texts, bpe.encode_batch(texts)):
        real = len(encoding.ids)
        assert tokens.count(text) >= real, text[:200]
        ratios.append(len(text.encode()) / real)
    assert min(ratios) < 2.4                  # the worst messages come close: the divisor is not slack by far


def test_every_view_row_is_counted_conservatively(bpe):
    from generator.kernelswarm.plan import episode

    tasks = all_tasks()
    sessions = [simulate_session(tasks[i], rng_for(9, 1, i)) for i in (11, 2_000)]
    episodes = [episode(5, 60, 10, i) for i in range(0, 60, 15)]
    checked = 0
    for row in sessions:
        for view in views_steps.rows(row)[::25]:
            assert view["prompt_tokens"] + view["completion_tokens"] >= _real(bpe, view["prompt"] + view["completion"])
            checked += 1
    for row in episodes:
        for view in views_transitions.rows(row)[::5]:
            assert view["prompt_tokens"] + view["completion_tokens"] >= _real(bpe, view["prompt"] + view["completion"])
            checked += 1
        for view in views_agent_turns.rows(row):
            assert view["tokens"] >= _real(bpe, view["messages"])
            checked += 1
    assert checked >= 30


CHATML = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
          "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def test_apply_chat_template_renders_view_rows_within_their_estimate(bpe):
    """What a trainer does with a row (TRL renders prompt + completion through the tokenizer's chat template):
    every turn appears in the rendered text, in order, and the template's token count is at most the row's
    documented count."""
    transformers = pytest.importorskip("transformers", reason="transformers is not installed (pip install '.[test]')")
    pytest.importorskip("jinja2", reason="jinja2 is not installed (pip install '.[test]'): apply_chat_template needs it")
    from generator.kernelswarm.plan import episode

    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token=SPECIAL[1], chat_template=CHATML)
    tasks = all_tasks()
    session = simulate_session(tasks[40], rng_for(10, 1, 40))
    episodes = [episode(6, 60, 10, i) for i in (0, 31)]
    samples = [(r["prompt"] + r["completion"], r["prompt_tokens"] + r["completion_tokens"])
               for r in views_steps.rows(session)[::20]]
    samples += [(r["prompt"] + r["completion"], r["prompt_tokens"] + r["completion_tokens"])
                for ep in episodes for r in views_transitions.rows(ep)[::6]]
    samples += [(r["messages"], r["tokens"]) for ep in episodes for r in views_agent_turns.rows(ep)[::3]]
    assert len(samples) >= 12
    for turns, estimate in samples:
        text = tok.apply_chat_template(turns, tokenize=False)
        at = 0
        for turn in turns:
            piece = f"{SPECIAL[0]}{turn['role']}\n{turn['content']}{SPECIAL[1]}"
            found = text.find(piece, at)
            assert found >= 0, (turn["role"], turn["content"][:80])
            at = found + len(piece)
        ids = tok.apply_chat_template(turns, tokenize=True, return_dict=False)
        assert 0 < len(ids) <= estimate
