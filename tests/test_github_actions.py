"""docs/github-actions/wismo-compare.yml is a workflow GitHub can run: it parses, every wismo command it runs
exists and takes the options it is given (with the scripted policy and with a model), and it records the
baseline and the candidate with the same designs before comparing them."""

from __future__ import annotations

import shlex
from typing import Any

import click
import yaml

from tests.helpers import ROOT
from wismo.cli import COMMANDS

WORKFLOW = ROOT / "docs" / "github-actions" / "wismo-compare.yml"
# What the workflow's "Choose the policy" step puts in RECORD_ARGS, with the key secret and without it.
POLICIES = {"model": "--provider openai --model gpt-5.4-mini --repetitions 5", "scripted": "--repetitions 1"}


def workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def wismo_lines(record_args: str) -> list[list[str]]:
    """Every `wismo ...` command of the workflow's run steps, shell variables filled in as the runner would."""
    commands = []
    for step in workflow()["jobs"]["compare"]["steps"]:
        for line in str(step.get("run", "")).splitlines():
            line = line.strip().replace("$RECORD_ARGS", record_args).replace("$RUNNER_TEMP", "/tmp/runner")
            line = line.split("|")[0].split(">")[0] if line.startswith("wismo ") else line
            if line.startswith("wismo "):
                commands.append(shlex.split(line)[1:])
    return commands


def test_the_workflow_parses_and_runs_on_pull_requests_with_the_key_as_a_secret():
    flow = workflow()
    assert flow["name"] == "wismo compare" and "pull_request" in flow[True]  # YAML 1.1 reads `on` as True
    job = flow["jobs"]["compare"]
    assert job["env"]["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    uses = [step["uses"].split("@")[0] for step in job["steps"] if "uses" in step]
    assert uses == ["actions/checkout", "actions/setup-python", "actions/upload-artifact"]
    choose = next(step["run"] for step in job["steps"] if step.get("name", "").startswith("Choose the policy"))
    for args in POLICIES.values():
        assert f"RECORD_ARGS={args}" in choose


def test_every_wismo_command_exists_and_accepts_its_options_with_either_policy():
    for policy, args in POLICIES.items():
        commands = wismo_lines(args)
        assert [c[0] for c in commands] == ["record", "record", "compare", "compare", "build-site"], policy
        for name, *rest in commands:
            command = COMMANDS[name]()
            # parsing alone: an unknown option or a wrong value raises a UsageError here
            with command.make_context(f"wismo {name}", list(rest), resilient_parsing=False) as context:
                assert isinstance(context, click.Context)
        [baseline, candidate] = [c for c in commands if c[0] == "record"]
        assert baseline[baseline.index("--run-id") + 1] == "baseline"
        assert candidate[candidate.index("--run-id") + 1] == "candidate"
        # the same designs and policy on both sides; only the server's checkout differs
        strip = {"--run-id", "baseline", "candidate"}
        differ = [(a, b) for a, b in zip(baseline, candidate, strict=True) if a != b and a not in strip]
        [(before, after)] = differ
        assert before == "middle=python /tmp/runner/baseline/examples/middle/server.py"
        assert after == "middle=python examples/middle/server.py"
        assert any(c[:3] == ["compare", "runs/baseline", "runs/candidate"] for c in commands)
