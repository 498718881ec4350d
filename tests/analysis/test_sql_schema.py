"""The SQL that reads a run names only fields the run format defines, with the types the models give them.

load_run.sql has to spell out the manifest's and the events' columns for DuckDB (a typed read is what
makes one pass over events.jsonl cheap). These tests hold that spelling to core.runformat's models, so
the SQL cannot read a field the writer never writes, or read it as another type.
"""

from __future__ import annotations

import json
import re
import types
import typing
from typing import Any, get_args, get_origin

import pytest
from pydantic import BaseModel

from analysis.db import sql_text
from core.domain.fields import ASSESSMENT_FIELDS
from core.runformat import events
from core.runformat.manifest import Manifest

SCALARS = {"VARCHAR": (str,), "BIGINT": (int,), "BOOLEAN": (bool,), "DOUBLE": (float, int)}


def _manifest_structure(sql: str) -> dict[str, Any]:
    found = re.search(r"json_transform\(content, '(\{.*?\})'\)", sql, re.S)
    assert found, "load_run.sql no longer reads the manifest with json_transform"
    return json.loads(found.group(1))


def _event_columns(sql: str) -> dict[str, str]:
    found = re.search(r"read_json\(getvariable\('run_dir'\) \|\| '/events.jsonl'.*?columns = \{(.*?)\}\)", sql, re.S)
    assert found, "load_run.sql no longer reads events.jsonl with explicit columns"
    body = re.sub(r"--[^\n]*", "", found.group(1))
    return dict(re.findall(r"(\w+): '([^']+)'", body))


def _unwrap(annotation: Any) -> list[Any]:
    """The non-None alternatives of a field's annotation (X | None -> [X])."""
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return [a for a in get_args(annotation) if a is not type(None)]
    return [annotation]


def _mismatches(structure: Any, annotation: Any, where: str) -> list[str]:
    """Where the DuckDB structure does not fit the model's annotation."""
    if structure == "JSON":
        return []
    wrong: list[str] = []
    options = _unwrap(annotation)
    if isinstance(structure, str):
        if not any(o in SCALARS[structure] or get_origin(o) is typing.Literal for o in options):
            wrong.append(f"{where}: {structure} but the model says {annotation}")
        return wrong
    if isinstance(structure, list):
        lists = [o for o in options if get_origin(o) is list]
        if not lists:
            return [f"{where}: a list but the model says {annotation}"]
        return _mismatches(structure[0], get_args(lists[0])[0], where + "[]")
    models = [o for o in options if isinstance(o, type) and issubclass(o, BaseModel)]
    if models:
        fields = models[0].model_fields
        for key, inner in structure.items():
            if key not in fields:
                wrong.append(f"{where}.{key}: not a field of {models[0].__name__}")
            else:
                wrong += _mismatches(inner, fields[key].annotation, f"{where}.{key}")
        return wrong
    if any(get_origin(o) is dict for o in options):
        return []  # a free-form object (expected values): held by the next test
    return [f"{where}: an object but the model says {annotation}"]


def test_the_manifest_structure_load_run_sql_reads_is_the_manifest_model():
    structure = _manifest_structure(sql_text("load_run.sql"))
    assert _mismatches(structure, Manifest, "manifest") == []
    assert set(structure["cases"][0]["expected"]) == set(ASSESSMENT_FIELDS)


def _event_fields() -> dict[str, list[Any]]:
    """Every field any event line can carry, with the annotations the models give it."""
    fields: dict[str, list[Any]] = {}
    for line in (*events.EVENT_LINES,):
        for name, info in line.model_fields.items():
            fields.setdefault(name, []).append(info.annotation)
    return fields


def _struct_fields(sql_type: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+) (\w+)", sql_type.removeprefix("STRUCT(").removesuffix(")")))


def test_every_event_column_load_run_sql_reads_is_a_field_of_an_event_line():
    fields = _event_fields()
    wrong = []
    for column, sql_type in _event_columns(sql_text("load_run.sql")).items():
        if column not in fields:
            wrong.append(f"{column}: no event line has this field")
            continue
        if sql_type.startswith("STRUCT("):
            structure: Any = dict(_struct_fields(sql_type))
        elif column in ("assessment", "score", "claimed", "outputItems"):
            structure = "JSON"  # read as text, parsed in views.sql
        else:
            structure = {"VARCHAR": "VARCHAR", "BIGINT": "BIGINT", "BOOLEAN": "BOOLEAN"}[sql_type]
        if not any(not _mismatches(structure, annotation, column) for annotation in fields[column]):
            wrong.append(f"{column}: {sql_type} fits none of {fields[column]}")
    assert wrong == []


@pytest.mark.parametrize("planted", [
    ('"repetitions": "BIGINT"', '"repetitions": "BIGINT", "bogus": "VARCHAR"'),
    ('"model": "VARCHAR"', '"model": "BIGINT"'),
    ('"pairPosition": "BIGINT"', '"pairPlace": "BIGINT"'),
    ('"isLanguageModel": "BOOLEAN"', '"isLanguageModel": ["BOOLEAN"]'),
])
def test_a_drifted_manifest_structure_is_caught(planted):
    old, new = planted
    sql = sql_text("load_run.sql")
    assert old in sql
    structure = _manifest_structure(sql.replace(old, new, 1))
    assert _mismatches(structure, Manifest, "manifest") != []


def test_a_drifted_event_column_is_caught():
    columns = _event_columns(sql_text("load_run.sql").replace("callId: 'VARCHAR'", "callIdent: 'VARCHAR'"))
    assert "callIdent" in columns and "callIdent" not in _event_fields()
