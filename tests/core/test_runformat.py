"""The run format is written once: the SQL, the document and the sample run are held against the models."""

from __future__ import annotations

import json
import re
from typing import Any, get_args

import pytest
from pydantic import BaseModel, ValidationError

from core.errors import RunFormatError
from core.runformat import SCHEMA_VERSION, events
from core.runformat.doc import DOCUMENT, document_section, generated_section
from core.runformat.manifest import Manifest
from core.runformat.read import read_manifest, read_manifest_json
from tests.helpers import ROOT

SQL = ROOT / "analysis" / "sql"
SAMPLE = ROOT / "runs" / "sample-offline"


def _models_of(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in _models_of(arg)]


def _field(models: tuple[type[BaseModel], ...], name: str) -> list[Any]:
    """The annotations `name` has in any of the models (empty when none defines it)."""
    return [model.model_fields[name].annotation for model in models if name in model.model_fields]


def _read_columns(sql: str) -> dict[str, str]:
    """The `columns = {name: 'TYPE', ...}` of a read_json call: what the SQL reads from each line."""
    block = re.search(r"columns = \{(.*?)\}\)", sql, re.S)
    assert block, "no read_json columns in the file"
    body = re.sub(r"--[^\n]*", "", block.group(1))
    return {name.strip('"'): kind for name, kind in re.findall(r"(\"?\w+\"?)\s*:\s*'([^']*)'", body)}


def _struct_fields(kind: str) -> dict[str, str]:
    """The top-level fields of a DuckDB STRUCT type, with their types (nested structs kept whole)."""
    inner = re.match(r"STRUCT\((.*)\)$", " ".join(kind.split()))
    if not inner:
        return {}
    fields, depth, current = {}, 0, ""
    for char in inner.group(1) + ",":
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            name, _, sub = current.strip().partition(" ")
            fields[name] = sub
            current = ""
        else:
            current += char
    return fields


def _check_struct(sql_file: str, where: str, kind: str, annotations: list[Any]) -> None:
    nested = tuple(m for a in annotations for m in _models_of(a))
    if not nested:  # a free-form object (the expectation, per-field scores) has no model to hold the SQL to
        return
    for sub, sub_kind in _struct_fields(kind).items():
        found = _field(nested, sub)
        assert found, f"{sql_file} reads {where}.{sub}, which {[m.__name__ for m in nested]} does not define"
        _check_struct(sql_file, f"{where}.{sub}", sub_kind, found)


@pytest.mark.parametrize(("sql_file", "models"), [
    ("load_run.sql", events.EVENT_LINES),
    ("load_details.sql", events.EVENT_LINES),
    ("load_scores.sql", events.SCORE_LINES),
    ("load_claims.sql", events.CLAIM_LINES),
])
def test_every_field_the_sql_reads_is_defined_by_the_models(sql_file, models):
    columns = _read_columns((SQL / sql_file).read_text())
    assert columns, sql_file
    for name, kind in columns.items():
        annotations = _field(models, name)
        assert annotations, f"{sql_file} reads {name!r}, which no line model of its file defines"
        _check_struct(sql_file, name, kind, annotations)


def _check_transform(shape: Any, annotation: Any, where: str) -> None:
    if isinstance(shape, list):
        [inner] = [a for a in get_args(annotation) if a is not type(None)] or [annotation]
        _check_transform(shape[0], get_args(inner)[0] if get_args(inner) else inner, where + "[]")
        return
    if not isinstance(shape, dict):
        return
    models = _models_of(annotation)
    if not models:  # a free-form object in the model: nothing to hold the keys to
        return
    for key, sub in shape.items():
        annotations = _field(tuple(models), key)
        assert annotations, f"load_run.sql reads manifest {where}.{key}, which the Manifest model does not define"
        _check_transform(sub, annotations[0], f"{where}.{key}")


def test_every_manifest_field_the_sql_reads_is_defined_by_the_model():
    sql = (SQL / "load_run.sql").read_text()
    shape = json.loads(re.search(r"json_transform\(content, '(\{.*?\})'\) AS m", sql, re.S).group(1))
    _check_transform(shape, Manifest, "manifest")


def test_the_document_s_tables_are_generated_from_the_models():
    text = DOCUMENT.read_text(encoding="utf-8")
    assert document_section(text) == generated_section(), \
        "docs/run-format.md is out of date: run `python -m core.runformat.doc --write`"


def test_the_sample_run_follows_the_models():
    assert isinstance(read_manifest(SAMPLE), Manifest)
    types = set()
    for number, line in enumerate((SAMPLE / "events.jsonl").read_text().splitlines(), start=1):
        event = events.EVENT_ADAPTER.validate_json(line)
        assert event.v == SCHEMA_VERSION, number
        types.add(event.type)
    assert types == {"run_started", "conversation_started", "model_request", "model_response", "tool_call",
                     "tool_result", "conversation_finished", "run_finished"}
    for line in (SAMPLE / "claims.jsonl").read_text().splitlines():
        events.DERIVED_ADAPTER.validate_json(line)


@pytest.mark.parametrize("change", [{"type": "model_reply"}, {"seq": 0}, {"v": 2}, {"unexpected": True}])
def test_a_line_that_breaks_the_schema_is_refused(change):
    line = next(line for line in (SAMPLE / "events.jsonl").read_text().splitlines() if '"tool_result"' in line)
    with pytest.raises(ValidationError):
        events.EVENT_ADAPTER.validate_python({**json.loads(line), **change})


def test_a_writer_cannot_build_a_field_the_format_does_not_define():
    with pytest.raises(ValidationError, match="bogus"):
        events.ToolCallMade(turn=1, callId="c1", name="get_order", arguments="{}", bogus=True)
    with pytest.raises(ValidationError, match="status"):
        events.ConversationFinished(status="done", budgetHit=None, error=None, finalText=None, assessment=None,
                                    score={"fields": {}, "passed": False},
                                    claimed={"turns": 0, "toolCalls": 0, "inputTokens": None, "outputTokens": None,
                                             "cachedTokens": None, "elapsedMs": 0.0})


def test_a_manifest_with_a_wrong_field_is_named(tmp_path):
    manifest = read_manifest_json(SAMPLE)
    manifest["budgets"]["maxTurns"] = "eight"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    read_manifest_json(tmp_path)  # the JSON reader checks the version only
    with pytest.raises(RunFormatError, match=r"manifest.json: budgets.maxTurns: Input should be a valid integer"):
        read_manifest(tmp_path)


def test_a_manifest_read_and_written_again_is_the_same_json(tmp_path):
    # --resume and record write the manifest back from the model: nothing the run recorded may be lost.
    raw = read_manifest_json(SAMPLE)
    again = read_manifest(SAMPLE).model_dump(mode="json")
    assert {key: again[key] for key in raw} == raw
    # The sample predates these fields: written again, they hold their documented defaults.
    assert {key: again[key] for key in set(again) - set(raw)} == {"baseline": None, "designSources": {}}


def test_the_shape_check_knows_every_status_the_format_defines():
    sql = (SQL / "load_run.sql").read_text()
    listed = re.search(r"status NOT IN \(([^)]*)\)", sql, re.S).group(1)
    assert re.findall(r"'(\w+)'", listed) == list(get_args(events.Status))
