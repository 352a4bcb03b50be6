"""How the team words its coordination messages: each as several engineers would put the same facts.

Why: every merge, redirect, handoff, verification and verdict used to be one template (a 300-episode folder:
1,119 redirects, 739 merges, 300 verdicts in one wording each, 336 of them repeating an earlier one of their
episode byte for byte), as if one person wrote all 2,400 episodes. Each function returns the wordings of one
message; the agent saying it draws one (`_Episode.word`). Every wording states only what is true when it is said
and writes its figures as before (times as the reports print them, `feedback.ms_text`, speedups, `P/N results passed`, `aNN/tag`, `K=V,...` settings).
"""
from __future__ import annotations


def merge(who: str, tag: str, cfg: str, ms: str, x: str, base: str, again: bool) -> list[str]:
    """The lead merges `who`'s `tag` `cfg` at `ms` ms (`x` times faster than the `base` ms baseline); `again`: the
    same best as its last merge (nothing faster since)."""
    if again:
        return [f"{who}'s {tag} {cfg} stays the shared best at {ms} ms ({x}x over baseline): nothing faster since "
                f"the last merge",
                f"no change at the top: {who}, {tag} {cfg}, {ms} ms ({x}x over baseline)",
                f"still {who}'s {tag} ({cfg}) at {ms} ms, {x}x over baseline; no result beat it since the last merge",
                f"keeping {who}'s {tag} {cfg} as the shared best: {ms} ms, {x}x over the {base} ms baseline"]
    return [f"merge {who}: {tag} {cfg} at {ms} ms is the shared best ({x}x over baseline)",
            f"merging {who}'s {tag} ({cfg}): {ms} ms, {x}x over the {base} ms baseline",
            f"{who}'s {tag} {cfg} is the new shared best at {ms} ms ({x}x over baseline); merged",
            f"merged {tag} {cfg} from {who}: the team's best is now {ms} ms, {x}x over baseline",
            f"taking {who}'s {tag} with {cfg} as the shared best: {ms} ms ({x}x vs the {base} ms baseline)"]


def redirect(tag: str, cfg: str, on: str | None) -> list[str]:
    """The lead sends an agent to tune around the best it merged last, `tag` `cfg`; `on`: the variant of the agent's
    latest result (None before any), so only an agent on another variant is told to switch. The words claim the
    merge, not the lead now: the env may have announced a newer best by the time the order is out."""
    if on == tag:
        return [f"stay on {tag}; tune around {cfg}", f"keep at {tag}, now around the merged best's {cfg}",
                f"{tag} holds the merged best; tune from {cfg}", f"carry on with {tag}, starting from {cfg}"]
    return [f"switch to {tag}; tune around {cfg}", f"switch to {tag}, which has the merged best; take it from {cfg}",
            f"please pick up {tag} at {cfg} and tune from there"] + \
           ([f"move from {on} to {tag} and tune around {cfg}"] if on else [])


def handoff(giver: str, tuner: str, tag: str, cfg: str, ms: str) -> list[str]:
    """`giver` hands its own passing `tag` `cfg` (measured at `ms` ms) to `tuner`."""
    return [f"{giver} -> {tuner}: {tag} {cfg} ({ms} ms) for tuning",
            f"{tuner}, over to you: {tag} {cfg} at {ms} ms; tune its constants",
            f"handing {tag} {cfg} ({ms} ms) to {tuner} for tuning",
            f"{tuner}: please tune my {tag}; {cfg} ran in {ms} ms",
            f"passing {tag} {cfg} to {tuner}: it ran in {ms} ms, see what its constants give"]


def verify(who: str, tag: str, cfg: str) -> list[str]:
    """The verifier re-checks `who`'s passing `tag` `cfg` against the fp64 reference on 3 more seeds: pass."""
    return [f"re-checked {who}/{tag} against the fp64 reference on 3 extra seeds: pass",
            f"{who}/{tag} matches the fp64 reference on 3 more seeds: pass",
            f"pass: {who}'s {tag} ({cfg}) re-run against the fp64 reference on 3 extra seeds",
            f"verified {who}/{tag} at {cfg} on 3 extra seeds against the fp64 reference: pass"]


def verdict(who: str, tag: str, cfg: str, ms: str, x: str, base: str, passed: str) -> list[str]:
    """The lead's verdict: `who`'s `tag` `cfg` at `ms` ms, `x` times the `base` ms baseline; `passed`: `P/N`."""
    return [f"verdict: best {ms} ms by {who} ({tag} {cfg}), {x}x over the {base} ms baseline; {passed} results passed",
            f"final: {who}'s {tag} ({cfg}) at {ms} ms, {x}x over the {base} ms baseline; {passed} results passed",
            f"done: we keep {tag} {cfg} from {who}, {ms} ms vs the {base} ms baseline ({x}x); {passed} results passed",
            f"wrapping up with {who}'s {tag} {cfg}: {ms} ms, {x}x over the {base} ms baseline ({passed} results "
            f"passed)",
            f"{x}x it is: {who}'s {tag} at {cfg} runs in {ms} ms against the {base} ms baseline; {passed} results "
            f"passed"]


def no_improvement(base: str) -> list[str]:
    """How a verdict that keeps the `base` ms naive baseline opens (its reasons follow)."""
    return [f"verdict: no improvement; keeping the {base} ms baseline.",
            f"no speedup: the naive {base} ms kernel stays.", f"closing without a win; the {base} ms baseline stays.",
            f"nothing beat the {base} ms baseline, so we keep it."]


def move_on(done: str, tag: str, cfg: str, behind: bool) -> list[str]:
    """The lead moves an agent whose variant `done` has no configuration left worth sending to `tag`, to tune around
    `cfg`; `behind`: because no tune of `done` can catch up with the shared best (its untried ones are not tried)."""
    if behind:
        return [f"{done} can't catch up with the best by tuning; switch to {tag} and tune around {cfg}",
                f"no {done} config can close the gap to the best: switch to {tag}, tune around {cfg}",
                f"{done} is too far behind the best to tune into the lead; move from it to {tag} and tune around "
                f"{cfg}"]
    return [f"{done} has nothing left to try; switch to {tag} and tune around {cfg}",
            f"we're out of untried {done} configs: switch to {tag}, tune around {cfg}",
            f"nothing untried left in {done}; move from it to {tag} and tune around {cfg}"]


def last_push(tag: str) -> list[str]:
    """The lead gives the builder of a team that beat nothing yet variant `tag` for a last push."""
    return [f"last push before we concede: try {tag}", f"one more idea before we settle: {tag}",
            f"before we close, take a shot at {tag}"]
