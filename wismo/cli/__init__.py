"""The `wismo` command group; each command lives in its own module and only parses options."""

from __future__ import annotations

import sys

import click

from recorder import __version__
from recorder.errors import WismoError
from wismo.cli.build_site import build_site_command
from wismo.cli.check import check
from wismo.cli.claims import claims_command
from wismo.cli.demo import demo
from wismo.cli.record import record_command
from wismo.cli.score import score_command
from wismo.cli.serve import serve


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wismo")
def cli() -> None:
    """Measure where evidence gathering belongs in an MCP support agent: granular tools or one focused context."""


cli.add_command(check)
cli.add_command(serve)
cli.add_command(record_command)
cli.add_command(score_command)
cli.add_command(claims_command)
cli.add_command(build_site_command)
cli.add_command(demo)


def main() -> None:
    """Run the CLI; a WismoError becomes one clear line on stderr and exit code 2, never a traceback."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except WismoError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
