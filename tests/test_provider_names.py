"""Provider behaviour lives on the providers: no code outside recorder/providers asks for a provider by name.

Outside the providers package, a registered provider's name may be a default or a word in a message,
never something code decides by: not compared (`==`, `!=`, `in`, `match`), not a key of a lookup table or
a subscript, and a provider's attributes are not probed with getattr/hasattr (its traits say what it
has). The one table keyed by provider names is the run format's record of what runs recorded before
`provider.pricingVendor` meant. SQL files and templates are searched for compared names too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from core.runformat.manifest import PRICING_VENDORS_BEFORE_THE_FIELD, pricing_vendor
from recorder.providers import REGISTRY
from tests.helpers import ROOT

SCANNED = ("core", "recorder", "analysis", "wismo", "benchmarks")
PROVIDERS_PACKAGE = ROOT / "recorder" / "providers"
# The one table keyed by provider names: (file, the name it is assigned to).
ALLOWED_TABLES = {("core/runformat/manifest.py", "PRICING_VENDORS_BEFORE_THE_FIELD")}
NAMES = frozenset(REGISTRY)


def _names_in(node: ast.AST | None, names: frozenset[str]) -> list[str]:
    """The provider names `node` is, or holds as a literal tuple, list or set."""
    if isinstance(node, ast.Constant) and node.value in names:
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [found for element in node.elts for found in _names_in(element, names)]
    return []


def _assigned_to(tree: ast.AST) -> dict[int, str]:
    """id(value node) → the name it is assigned to, for module- and class-level assignments."""
    targets: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            targets[id(node.value)] = node.targets[0].id
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            targets[id(node.value)] = node.target.id
    return targets


def _is_probe(node: ast.Call) -> bool:
    """getattr/hasattr on something named like a provider."""
    if not (isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and node.args):
        return False
    subject = node.args[0]
    text = subject.id if isinstance(subject, ast.Name) else subject.attr if isinstance(subject, ast.Attribute) else ""
    return "provider" in text.lower()


def violations(source: str, where: str, names: frozenset[str] = NAMES) -> list[str]:
    """Every place `source` decides by a provider's name or probes a provider, as `where:line: what`."""
    tree = ast.parse(source)
    tables = _assigned_to(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            hits = [h for operand in (node.left, *node.comparators) for h in _names_in(operand, names)]
            found += [(line, f"compares a provider name ({hit!r})") for hit in hits]
        elif isinstance(node, ast.MatchValue):
            found += [(line, f"matches a provider name ({hit!r})") for hit in _names_in(node.value, names)]
        elif isinstance(node, ast.Dict) and (where, tables.get(id(node))) not in ALLOWED_TABLES:
            hits = [h for key in node.keys for h in _names_in(key, names)]
            found += [(line, f"a table keyed by a provider name ({hit!r})") for hit in hits]
        elif isinstance(node, ast.Subscript):
            found += [(line, f"looks a provider name up ({hit!r})") for hit in _names_in(node.slice, names)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args:
            found += [(line, f"looks a provider name up ({hit!r})") for hit in _names_in(node.args[0], names)]
        elif isinstance(node, ast.Call) and _is_probe(node):
            found.append((line, f"probes a provider's attributes with {ast.unparse(node.func)}()"))
    return [f"{where}:{line}: {what}" for line, what in sorted(found, key=lambda hit: hit[0])]


def text_violations(text: str, where: str, names: frozenset[str] = NAMES) -> list[str]:
    """SQL and Jinja: a provider name compared (`= 'openai'`, `== "scripted"`, `IN ('anthropic', …)`)."""
    quoted = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    compared = re.compile(rf"""(?:=|<>|\bin\b|\bIN\b)\s*\(?\s*['"]({quoted})['"]|['"]({quoted})['"]\s*(?:==|!=|=|<>)""")
    return [f"{where}:{text.count(chr(10), 0, m.start()) + 1}: compares a provider name ({m.group(1) or m.group(2)!r})"
            for m in compared.finditer(text)]


def _python_files() -> list[Path]:
    return [p for top in SCANNED for p in sorted((ROOT / top).rglob("*.py")) if PROVIDERS_PACKAGE not in p.parents]


def test_no_code_outside_the_providers_decides_by_a_provider_s_name():
    found = [v for path in _python_files()
             for v in violations(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())]
    assert not found, "\n".join(found)


def test_no_sql_file_or_template_compares_a_provider_s_name():
    files = [*sorted((ROOT / "analysis" / "sql").glob("*.sql")), *sorted((ROOT / "site" / "templates").rglob("*"))]
    found = [v for path in files if path.is_file()
             for v in text_violations(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())]
    assert not found, "\n".join(found)


def test_the_checker_finds_every_planted_kind_of_violation():
    planted = '''
def f(provider, options, name):
    if options.provider == "scripted":
        pass
    if "openai-chat" != provider.name:
        pass
    if name in ("openai", "anthropic"):
        pass
    match name:
        case "anthropic":
            pass
    VENDORS = {"openai": "openai"}
    VENDORS["openai"]
    VENDORS.get("anthropic")
    getattr(provider, "base_url", None)
    hasattr(self.provider, "client")
'''
    found = violations(planted, "planted.py")
    assert [v.split(": ", 1)[0] for v in found] == \
        [f"planted.py:{n}" for n in (3, 5, 7, 7, 10, 12, 13, 14, 15, 16)], found
    assert "compares a provider name ('openai-chat')" in found[1]
    assert "a table keyed by a provider name ('openai')" in found[5]
    assert found[-1].endswith("probes a provider's attributes with hasattr()")
    # The allowed table is allowed only under its own name, in its own file.
    table = 'PRICING_VENDORS_BEFORE_THE_FIELD = {"openai": "openai"}\n'
    assert violations(table, "core/runformat/manifest.py") == []
    assert violations(table, "analysis/prices.py") != []
    assert violations('LIBRARY_PROVIDERS = {"openai": "openai"}\n', "core/runformat/manifest.py") != []
    sql = "SELECT 1 FROM run_info WHERE provider = 'openai-chat' OR provider IN ('scripted')"
    assert len(text_violations(sql, "x.sql")) == 2
    assert len(text_violations('{% if run.provider == "anthropic" %}', "x.html")) == 1


def test_the_checker_leaves_names_that_decide_nothing_alone():
    harmless = '''
"""The scripted policy and openai are words here."""
import click

@click.option("--provider", default="scripted", help="openai-chat needs a base URL")
def f(provider: str = "scripted") -> str:
    names = ["openai", "anthropic"]
    print(f"{provider} is not openai")
    return getattr(click, "echo").__name__ + {"name": "openai"}["name"]
'''
    assert violations(harmless, "harmless.py") == []
    assert text_violations("-- requests shaped by openai-chat's answer format", "x.sql") == []


def test_the_old_runs_pricing_table_agrees_with_what_each_provider_records_today():
    # The fallback applies when a run recorded no vendor; a provider still registered under one of its
    # names must record that same vendor, or the table would contradict the runs it records now.
    for name, vendor in PRICING_VENDORS_BEFORE_THE_FIELD.items():
        assert REGISTRY[name].traits.pricing_vendor == vendor, name
    assert pricing_vendor("openai", None) == "openai" and pricing_vendor("openai-chat", None) is None
    assert pricing_vendor("openai-chat", "mistral") == "mistral" and pricing_vendor(None, None) is None


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_registered_name_is_one_the_checker_looks_for(name):
    assert violations(f"x == {name!r}\n", "x.py") == [f"x.py:1: compares a provider name ({name!r})"]
