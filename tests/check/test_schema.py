"""schema/*.schema.json: valid draft 2020-12, self-contained, strict, and in agreement with the builders' Features."""
from __future__ import annotations

import copy

import jsonschema
import pytest
from datasets import Json, List, Value

import kernelinfer
import kernelswarm
from generator.check import schemas
from generator.task_features import HOLDOUT_FEATURES
from rows import episode_row, session_row, task_row

BUILDER_FEATURES = {"session": kernelinfer.FEATURES, "episode": kernelswarm.FEATURES, "task": HOLDOUT_FEATURES}
ARROW_KIND = {"string": "string", "float64": "number", "int64": "integer", "bool": "boolean"}


EXAMPLES = {"session": session_row, "episode": episode_row, "task": task_row}


def test_the_descriptors_name_every_schema_document_once():
    """NAMES comes from the dataset descriptors: a schema file nobody names, or a name without a file, fails."""
    documents = sorted(p.name.removesuffix(".schema.json") for p in schemas.SCHEMA_DIR.iterdir()
                       if p.name.endswith(".schema.json"))
    assert sorted(schemas.NAMES) == documents and len(set(schemas.NAMES)) == len(schemas.NAMES)


@pytest.mark.parametrize("name", schemas.NAMES)
def test_schema_is_valid_draft_2020_12(name):
    doc = schemas.load(name)
    jsonschema.Draft202012Validator.check_schema(doc)   # the 2020-12 metaschema
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"].endswith(f"/{name}.schema.json")
    schemas.compiled(name)                                 # every $ref resolves from schema/ alone


@pytest.mark.parametrize("name", ["session", "episode", "task"])
def test_example_rows_pass_and_breakage_is_located(name):
    rules = schemas.compiled(name)
    row = EXAMPLES[name]()
    assert rules.is_valid(row) and rules.errors(row) == []
    bad = copy.deepcopy(row)
    bad["gpu"] = "v100"
    bad["surprise"] = 1
    assert not rules.is_valid(bad)
    where = {path for path, _ in rules.errors(bad)}
    assert "gpu" in where and "/" in where                 # enum, and additionalProperties on the row


def test_nested_paths_name_the_item():
    rules = schemas.compiled("session")
    row = session_row()
    row["messages"][3]["role"] = "tool"
    row["trace"][1]["time_ms"] = 0.5                       # a failed step has no time
    errors = dict(rules.errors(row))
    assert "enum" in errors["messages/3/role"]
    assert "trace/1/time_ms" in errors


def test_gpu_decides_arch():
    rules = schemas.compiled("task")
    assert not rules.is_valid(task_row(arch="sm_80"))
    assert rules.is_valid(task_row(gpu="a100", arch="sm_80"))
    assert rules.is_valid(task_row(gpu="rtx_5090", arch="sm_120a"))


def test_episode_kinds_carry_their_fields_and_roles():
    rules = schemas.compiled("episode")
    for index, drop in ((1, "to"), (1, "subtask"), (2, "params"), (3, "status"), (3, "time_ms"), (3, "ref"),
                        (4, "variant"), (4, "ref")):
        row = episode_row()
        del row["messages"][index][drop]
        assert not rules.is_valid(row), (index, drop)
    row = episode_row()
    row["messages"][0]["to"] = "a01"                       # a plan names no recipient
    assert not rules.is_valid(row)
    row = episode_row()
    row["messages"][3].update(status="compile_error")      # a failed result has no time
    assert not rules.is_valid(row)
    row["messages"][3].update(time_ms=None)
    assert rules.is_valid(row)
    row["messages"][3].update(status="pass")               # pass/fail belong to reviews and verifications
    assert not rules.is_valid(row)
    row = episode_row()
    row["messages"][0]["role"] = row["messages"][0]["agent"] = "env"    # a plan comes from the lead only
    assert not rules.is_valid(row)
    row = episode_row()
    row["messages"][2]["reward"] = 0.5                     # only results and the verdict carry a reward
    assert not rules.is_valid(row)
    row = episode_row()
    row["n_agents"] = 12                                   # dispatch has 2-8 agents
    assert not rules.is_valid(row)


def test_number_fields_come_from_the_schema():
    fields = {f.path: (f.type, f.nullable) for f in schemas.compiled("session").number_fields}
    assert fields[("trace", "*", "time_ms")] == (float, True)
    assert fields[("best", "step")] == (int, False)
    assert ("shape",) not in fields and not any(p[0] == "messages" for p in fields)
    row = session_row()
    row["baseline_ms"], row["trace"][0]["step"] = 1, 1.0
    problems = dict(schemas.compiled("session").number_problems(row, set()))
    assert set(problems) == {"baseline_ms", "trace/0/step"}


def _feature_kind(feature):
    if isinstance(feature, Json):
        return "json"
    if isinstance(feature, Value):
        return ARROW_KIND[feature.dtype]
    if isinstance(feature, List):
        return [_feature_kind(feature.feature)]
    return {key: _feature_kind(value) for key, value in feature.items()}


def _schema_kind(root, node):
    """The same shape read off the schema: typed structs as dicts, open objects as json, arrays as lists."""
    root, node = schemas._resolve(root, node)
    if "properties" in node:
        assert node.get("additionalProperties") is False, "a typed struct must be closed"
        return {key: _schema_kind(root, child) for key, child in node["properties"].items()}
    types = node.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    if "object" in types:
        return "json"
    if "array" in types:
        return [_schema_kind(root, node["items"])]
    if not types:                                          # an enum of strings
        assert all(isinstance(v, str) for v in node["enum"])
        return "string"
    rest = [t for t in types if t != "null"]
    return "number" if "number" in rest else rest[0]


@pytest.mark.parametrize("name", ["session", "episode", "task"])
def test_schemas_agree_with_builder_features(name):
    doc = schemas.load(name)
    assert _schema_kind(doc, doc) == _feature_kind(BUILDER_FEATURES[name])


@pytest.mark.parametrize("name", ["session", "episode", "task"])
def test_nullability_agrees_with_arrow(name):
    """Every row field is required (a missing column would be filled with nulls); null is allowed only for
    scalar numbers, which Arrow stores as nullable float64."""
    doc = schemas.load(name)
    assert set(doc["required"]) == set(doc["properties"])
    for field in schemas.compiled(name).number_fields:
        if field.nullable:
            assert field.type is float
