"""What the wheel promises that can be checked without building one (ci/smoke.sh builds and installs it):
the imports and the declared dependencies agree both ways, the bounds the README states are pyproject's, and
the schemas the package reads are the repo's one copy."""
from __future__ import annotations

import ast
import json
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

from generator.check import schemas

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return normalized(re.match(r"[A-Za-z0-9._-]+", requirement).group())


def imported_distributions() -> dict[str, set[str]]:
    """Distribution -> the package modules that import it (templates excluded: they are data, not code)."""
    owners = importlib.metadata.packages_distributions()
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "generator").rglob("*.py")):
        if "templates" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for top in {name.split(".")[0] for name in names} - set(sys.stdlib_module_names) - {"generator"}:
                # an optional extra (ray) may be absent here: then its import name is its distribution name
                for dist in owners.get(top, [top]):
                    found.setdefault(normalized(dist), set()).add(path.name)
    return found


def test_every_import_is_declared_and_every_dependency_imported():
    declared = {requirement_name(r) for r in PROJECT["dependencies"]}
    audit = {requirement_name(r) for extra, reqs in PROJECT["optional-dependencies"].items() if extra != "test"
             for r in reqs}   # optional extras (audit, ray): imported only by the command that needs them
    imported = imported_distributions()
    undeclared = {dist: sorted(files) for dist, files in imported.items() if dist not in declared | audit}
    assert not undeclared, f"imported but not declared in pyproject: {undeclared}"
    assert not declared - set(imported), f"declared but never imported: {sorted(declared - set(imported))}"


def test_dependencies_have_lower_bounds_only_and_the_readme_states_them():
    bounds = [re.sub(r"\s", "", r) for r in PROJECT["dependencies"]]
    assert all(">=" in b and "<" not in b for b in bounds), bounds
    readme = (ROOT / "README.md").read_text()
    stated = re.search(r"<!-- bounds:begin -->\n(.*?)<!-- bounds:end -->", readme, re.S)
    assert stated, "README lacks the dependency bounds section"
    assert sorted(re.findall(r"`([A-Za-z0-9._-]+>=[^`]+)`", stated.group(1))) == sorted(bounds)


def test_schemas_are_read_from_the_repo_copy_through_the_package():
    assert (ROOT / "generator" / "schema").resolve() == ROOT / "schema"
    shipped = sorted(p.name for p in schemas.SCHEMA_DIR.iterdir() if p.name.endswith(".schema.json"))
    assert shipped == sorted(f"{name}.schema.json" for name in schemas.NAMES)
    assert schemas.load("task") == json.loads((ROOT / "schema" / "task.schema.json").read_text())


def test_every_data_file_the_package_reads_ships_in_the_wheel():
    """Every file under generator/ that is not Python matches a package-data pattern of its package (0.6.1's wheel
    lacked kernels/arch_diagnostics.tsv: arch errors there fell back to a one-line message, other bytes than a
    checkout's)."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    package = ROOT / "generator"
    missing = []
    for path in sorted(p for p in package.rglob("*") if p.is_file() and p.suffix != ".py"
                       and "__pycache__" not in p.parts):
        owner = max((name for name in patterns if (ROOT / name.replace(".", "/")) in path.parents),
                    key=len, default=None)
        base = ROOT / owner.replace(".", "/") if owner else None
        if owner is None or not any(_glob(path.relative_to(base), pat) for pat in patterns[owner]):
            missing.append(path.relative_to(ROOT).as_posix())
    assert missing == []


def _glob(rel: Path, pattern: str) -> bool:
    """setuptools' package-data glob on a path relative to its package (`**` spans folders)."""
    regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
    return re.fullmatch(regex, rel.as_posix()) is not None
