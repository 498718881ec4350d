"""The `wismo` command group; each command lives in its own module and only parses options.

Commands are imported when they are used, so `wismo validate` does not pay for the MCP SDK and
`wismo record` does not pay for DuckDB.
"""

from __future__ import annotations

import importlib
import sys

import click

from wismo import __version__
from wismo.errors import WismoError

# name -> (module, attribute), in the order `wismo --help` lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("wismo.cli.check", "check"),
    "dataset": ("wismo.cli.dataset", "dataset_group"),
    "serve": ("wismo.cli.serve", "serve"),
    "record": ("wismo.cli.record", "record_command"),
    "score": ("wismo.cli.score", "score_command"),
    "claims": ("wismo.cli.claims", "claims_command"),
    "validate": ("wismo.cli.validate", "validate_command"),
    "summarize": ("wismo.cli.summarize", "summarize_command"),
    "build-site": ("wismo.cli.build_site", "build_site_command"),
    "demo": ("wismo.cli.demo", "demo"),
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, in the declared order."""
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return one command."""
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name]
        return getattr(importlib.import_module(module), attribute)

    @property
    def commands(self) -> dict[str, click.Command]:  # type: ignore[override]
        """All commands, imported (for tests and help generators that read the mapping)."""
        return {name: self.get_command(click.Context(self), name) for name in COMMANDS}  # type: ignore[misc]

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        # click.Group.__init__ assigns an empty mapping; the commands live in COMMANDS instead.
        pass


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wismo")
def cli() -> None:
    """Measure where evidence gathering belongs in an MCP support agent: granular tools or one focused context."""


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
