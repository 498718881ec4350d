"""`wismo dataset`: make datasets (`wismo dataset generate`)."""

from __future__ import annotations

from pathlib import Path

import click

from recorder.generate import DEFAULT_SIZES, MAX_LINES, write_dataset


def _sizes(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected comma-separated line counts, e.g. 1,2,5,10") from None
    if not sizes or any(not 1 <= n <= MAX_LINES for n in sizes):
        raise click.BadParameter(f"{value!r}: every size must be between 1 and {MAX_LINES}")
    return sizes


@click.group("dataset")
def dataset_group() -> None:
    """Make datasets in the two-file format (records.json, cases.json).

    Example:

        wismo dataset generate --out datasets/study --seed 1 --lines 1,2,5,10,25,50
    """


@dataset_group.command("generate")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write records.json and cases.json into (must not hold a dataset).")
@click.option("--seed", type=click.IntRange(min=0), required=True,
              help="The same seed and options always give the same bytes.")
@click.option("--orders-per-size", type=click.IntRange(min=1), default=2, show_default=True,
              help="Orders of each size.")
@click.option("--lines", "sizes", default=",".join(map(str, DEFAULT_SIZES)), show_default=True,
              callback=_sizes, help=f"Comma-separated order sizes in lines (1 to {MAX_LINES}).")
def generate_command(out_dir: Path, seed: int, orders_per_size: int, sizes: tuple[int, ...]) -> None:
    """Generate a synthetic dataset of orders of every size, deterministic by seed.

    Each order's lines mix every situation the contract knows (delivered, carrier delay,
    exception, backorder, unavailable tracking, missing records, split shipments); payments and
    stale order statuses vary by order; every order gets a case of each question kind (full,
    has everything arrived, when will the rest arrive, was my payment taken), with expectations
    derived by the contract's rules. Check it with `wismo check --dataset DIR`.

    Example:

        wismo dataset generate --out datasets/study --seed 1 --lines 1,5,25,50
    """
    write_dataset(out_dir, seed, sizes, orders_per_size)
    click.echo(f"wrote {out_dir / 'records.json'} and {out_dir / 'cases.json'}: "
               f"{orders_per_size * len(sizes)} orders of {', '.join(map(str, sizes))} lines, seed {seed}")
