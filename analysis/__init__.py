"""wismo's analysis stage: DuckDB SQL over raw runs, returned as plain dataclasses."""
