"""The README's promises that code can check: the quick start, the CI entry, the generated catalog tables."""
from __future__ import annotations

import re
from pathlib import Path

from generator.catalog.table import markdown

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_catalog_tables_are_generated_from_the_code():
    section = re.search(r"<!-- catalog:begin -->\n(.*)<!-- catalog:end -->", README, re.S)
    assert section, "README lacks the generated catalog section"
    assert section.group(1).strip() == markdown().strip(), "README catalog is stale: rerun `catalog --markdown`"


def test_quick_start_is_two_make_commands_and_ci_runs_the_test_one():
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["make data", "make test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text()
