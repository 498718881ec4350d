"""The raw run format: the one definition of a run folder, shared by every stage.

A run folder is what `recorder` writes and what `analysis` and the site read. This package is its
single definition:

- this module: the schema version and the file names (no pydantic, so readers start fast);
- `core.runformat.events`: the versioned pydantic models of every line and of the manifest, which
  the writer builds every event from and readers validate against;
- `core.runformat.read`: readers of the manifest and of the event lines (file:line on bad input);
- `core.runformat.write`: the append-only writer (one os.write per line) and atomic JSON files;
- `core.runformat.lock`: the one-writer lock on a run folder;
- `core.runformat.redact`: what is never written (API keys, credentials in URLs);
- `core.runformat.doc`: the field tables of docs/run-format.md, generated from the models.
"""

SCHEMA_VERSION = 1  # the `v` of every line, and the manifest's schemaVersion

MANIFEST_FILE = "manifest.json"
EVENTS_FILE = "events.jsonl"
COMPARISON_FILE = "deterministic-comparison.json"
SCORES_FILE = "scores.jsonl"
CLAIMS_FILE = "claims.jsonl"
LOGS_DIR = "logs"
LOCK_FILE = ".wismo-lock"  # held by the one process writing to the run (core.runformat.lock)

__all__ = ["CLAIMS_FILE", "COMPARISON_FILE", "EVENTS_FILE", "LOCK_FILE", "LOGS_DIR", "MANIFEST_FILE",
           "SCHEMA_VERSION", "SCORES_FILE"]
