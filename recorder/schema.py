"""The schema version of a raw run's lines, apart from the event models so that readers need not import pydantic."""

SCHEMA_VERSION = 1  # the `v` of every line, and the manifest's schemaVersion
