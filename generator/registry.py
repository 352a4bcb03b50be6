"""Every dataset kernelstrain generates: one line each. The CLI, validator, card and uploader look datasets up
here (by name, by row schema), never by a module name."""
from __future__ import annotations

from typing import TYPE_CHECKING

from generator.dataset import HOLDOUT, STATS_SCHEMA, Dataset
from generator.kernelinfer.dataset import KERNELINFER
from generator.kernelswarm.dataset import KERNELSWARM

if TYPE_CHECKING:
    from datasets import Features

DATASETS: dict[str, Dataset] = {d.name: d for d in (KERNELINFER, KERNELSWARM)}


def get(name: str) -> Dataset:
    try:
        return DATASETS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; expected one of {', '.join(DATASETS)}") from None


def by_schema(schema: str) -> Dataset | None:
    """The dataset whose main rows follow `schema` (None for the shared `task` and `stats` schemas)."""
    return next((d for d in DATASETS.values() if d.schema == schema), None)


def training_schemas() -> tuple[str, ...]:
    """Each dataset's main-row schema: the rows a held-out task must not appear in."""
    return tuple(d.schema for d in DATASETS.values())


def schema_names() -> tuple[str, ...]:
    """Every document of schema/: the datasets' main rows, the shared held-out task and stats, the views' rows."""
    views = (v.schema for d in DATASETS.values() for v in d.views)
    return (*training_schemas(), HOLDOUT.schema, STATS_SCHEMA, *dict.fromkeys(views))


def id_fields() -> dict[str, str]:
    """Row schema -> its id field, for every schema that has one."""
    return {**{d.schema: d.id_field for d in DATASETS.values()}, HOLDOUT.schema: "task_id"}


def row_features(schema: str) -> Features:
    """The features `load_dataset` casts rows of a row schema (schema/*.schema.json) to: the descriptors' own."""
    if schema == HOLDOUT.schema:
        return HOLDOUT.features
    view = next((v for d in DATASETS.values() for v in d.views if v.schema == schema), None)
    if view is not None:
        return view.features
    dataset = by_schema(schema)
    if dataset is None:
        raise ValueError(f"schema {schema!r} describes no dataset's rows")
    return dataset.features
