"""What `wismo record` is asked to do: the one options object the CLI builds and the run reads."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import WismoError
from recorder.agent.loop import Budgets
from recorder.designs.choose import DesignSpec


@dataclass(frozen=True)
class Guidance:
    """The user's own instructions (--instructions FILE): where they came from and their text."""

    file: str
    text: str

    @property
    def sha256(self) -> str:
        """The hash the manifest records, so two runs' instructions can be told apart without reading them."""
        return "sha256:" + hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @classmethod
    def read(cls, path: Path) -> Guidance:
        """The file's text; a file that cannot be read, is not UTF-8 or is empty is a one-line WismoError."""
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise WismoError(f"--instructions {path}: not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise WismoError(f"--instructions {path}: {exc.strerror or exc}") from None
        if not text.strip():
            raise WismoError(f"--instructions {path}: the file is empty")
        return cls(str(path), text)


@dataclass(frozen=True)
class RecordOptions:
    """Everything `wismo record` is asked to do."""

    provider: str = "scripted"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    designs: tuple[str, ...] | None = None  # picked and ordered (--designs); None: built-in, then brought
    servers: tuple[DesignSpec, ...] = ()  # designs brought with --server (or built-in ones replaced)
    headers: tuple[tuple[str, str, str], ...] = ()  # (design, header, value template) for HTTP designs
    baseline: str | None = None  # the design every other is compared with; None: the first
    repetitions: int = 3
    case_ids: tuple[str, ...] | None = None
    dataset_dir: Path | None = None
    concurrency: int = 4
    budgets: Budgets = field(default_factory=Budgets)
    out_dir: Path = Path("runs")
    run_id: str | None = None
    command_line: tuple[str, ...] = ()
    structured_output: str = "auto"
    tool_choice: str = "auto"
    reasoning_effort: str | None = None
    prompt_cache: bool = True
    strict_tools: bool = False
    text_tool_calls: bool = False  # read tool calls the model wrote in its text (recorder.providers.text_calls)
    guidance: Guidance | None = None  # --instructions FILE: replaces wismo's guidance; None: the default
