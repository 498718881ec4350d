"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path

import click

dataset_option = click.option(
    "--dataset",
    "dataset_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Dataset folder holding records.json and cases.json (default: the packaged dataset).",
)
