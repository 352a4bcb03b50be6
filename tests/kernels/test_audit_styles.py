"""The catalog audit compiles sources in sampled engineer styles (issue #16: the audit proves the styles
compile-true), not only the plain rendering: every candidate is rendered in a style drawn for it, and the drawn
styles vary in the dimensions that change generated code (`Style.codegen_key`) and in the rest."""
from generator.kernels import audit


def test_catalog_candidates_are_rendered_in_sampled_styles(monkeypatch):
    drawn = []
    draw = audit.draw_style

    def recording(rng, lang):
        drawn.append(draw(rng, lang))
        return drawn[-1]
    monkeypatch.setattr(audit, "draw_style", recording)
    candidates = audit.catalog_candidates(60, 0)
    assert len(candidates) == 60 and len(drawn) >= len(candidates)
    assert {s.codegen_key() for s in drawn} == {(u, r) for u in (True, False) for r in (True, False)}
    assert len({(s.camel, s.comments, s.indent, s.constants) for s in drawn}) > 6
