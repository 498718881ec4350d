"""analyze_runs: one load gives what validate_runs, summarize_runs, conversation_details and claim_findings give."""

from __future__ import annotations

import dataclasses

from analysis import analyze_runs, claim_findings, conversation_details, summarize_runs, validate_runs
from tests.analysis.conftest import SAMPLE_RUN


def test_one_load_gives_the_same_results_as_the_separate_functions():
    [analysis] = analyze_runs([SAMPLE_RUN], details=True)
    assert analysis.validation == validate_runs([SAMPLE_RUN])[0]
    assert analysis.summary == summarize_runs([SAMPLE_RUN])[0]
    assert analysis.details == conversation_details(SAMPLE_RUN)
    assert analysis.findings == claim_findings(SAMPLE_RUN)


def test_details_only_when_asked_for():
    [analysis] = analyze_runs([SAMPLE_RUN])
    assert analysis.summary is not None and analysis.details is None and analysis.findings is None


def test_a_failing_run_is_a_result_without_a_summary(sample_copy):
    lines = sample_copy.lines()
    sample_copy.write_lines([*lines, lines[-2]])  # a duplicated line breaks seq and more
    [analysis] = analyze_runs([sample_copy.path], details=True)
    assert not analysis.validation.passed
    assert analysis.validation == validate_runs([sample_copy.path])[0]
    assert analysis.summary is None and analysis.findings is None
    assert analysis.details is not None  # the conversations still read; the site shows them under the banner


def test_paired_rows_only_when_asked_for():
    [full] = summarize_runs([SAMPLE_RUN])
    [lean] = summarize_runs([SAMPLE_RUN], paired=False)
    assert full.paired and lean.paired is None
    assert dataclasses.replace(lean, paired=full.paired) == full
    [analysis] = analyze_runs([SAMPLE_RUN], paired=False)
    assert analysis.summary == lean
