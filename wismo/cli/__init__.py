"""The `wismo` command group; each command lives in its own module and only parses options.

Commands are imported when they are used, so `wismo validate` does not pay for the MCP SDK and
`wismo record` does not pay for DuckDB.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, MutableMapping

import click

from core import __version__
from core.errors import WismoError
from core.runformat.redact import Redactor


def _check() -> click.Command:
    from wismo.cli.check import check

    return check


def _dataset() -> click.Group:
    from wismo.cli.dataset import dataset_group

    return dataset_group


def _serve() -> click.Command:
    from wismo.cli.serve import serve

    return serve


def _doctor() -> click.Command:
    from wismo.cli.doctor import doctor_command

    return doctor_command


def _record() -> click.Command:
    from wismo.cli.record import record_command

    return record_command


def _score() -> click.Command:
    from wismo.cli.score import score_command

    return score_command


def _claims() -> click.Command:
    from wismo.cli.claims import claims_command

    return claims_command


def _validate() -> click.Command:
    from wismo.cli.validate import validate_command

    return validate_command


def _summarize() -> click.Command:
    from wismo.cli.summarize import summarize_command

    return summarize_command


def _build_site() -> click.Command:
    from wismo.cli.build_site import build_site_command

    return build_site_command


def _export() -> click.Command:
    from wismo.cli.export import export_command

    return export_command


def _compare() -> click.Command:
    from wismo.cli.compare import compare_command

    return compare_command


def _plan() -> click.Command:
    from wismo.cli.plan import plan_command

    return plan_command


def _demo() -> click.Command:
    from wismo.cli.demo import demo

    return demo


# name -> a function that imports the command's module and returns the command, in `wismo --help` order.
COMMANDS: dict[str, Callable[[], click.Command]] = {
    "check": _check,
    "dataset": _dataset,
    "serve": _serve,
    "doctor": _doctor,
    "record": _record,
    "score": _score,
    "claims": _claims,
    "validate": _validate,
    "summarize": _summarize,
    "compare": _compare,
    "plan": _plan,
    "build-site": _build_site,
    "export": _export,
    "demo": _demo,
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, in the declared order."""
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return one command."""
        factory = COMMANDS.get(cmd_name)
        return factory() if factory else None

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        """All commands, imported (for tests and help generators that read the mapping)."""
        return {name: factory() for name, factory in COMMANDS.items()}

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        # click.Group.__init__ assigns an empty mapping; the commands live in COMMANDS instead.
        pass


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wismo")
def cli() -> None:
    """Measure where evidence gathering belongs in an MCP support agent: granular tools or one focused context."""


def main() -> None:
    """Run the CLI; a WismoError becomes one clear line on stderr and its exit code (2, 3 for a failed write)."""
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
        # An error may quote a URL or a provider's words: it is scrubbed like everything wismo writes.
        click.echo(f"error: {Redactor.from_environment().scrub(str(exc))}", err=True)
        sys.exit(exc.exit_code)
