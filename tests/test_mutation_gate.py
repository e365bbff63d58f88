"""The mutation gate: `clawarena check --mutants --min-mutation-score X [--survivors FILE]` fails on
a low score or an unexplained survivor, accepts the survivors a strict `## Accepted survivors`
table lists with a reason, and warns about stale ones. Also: the data tables the mutant kinds
read (opposites, resource arguments, items) are reviewed against the real tools and tables."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.runner.mutants import (
    ITEMS,
    MUTANT_KINDS,
    OPPOSITES,
    RESOURCE_ARGS,
    VISIBILITY,
    Col,
    Mutant,
    MutantResult,
)
from clawarena.runner.survivors import (
    DOCS_SUITES,
    EMPTY_SECTION,
    AcceptedSurvivor,
    SurvivorsFileError,
    default_survivors_file,
    load_survivors,
    parse_survivors,
    review,
    survivor_row,
)
from clawarena.services import all_tools, world_factory
from clawarena.tools.core import ToolKind
from tests.test_mutants import WEAK, write_suite

KINDS = MUTANT_KINDS.names()
HEADER = "| scenario | kind | mutant | reason |\n|---|---|---|---|\n"


def _doc(rows: str = "", before: str = "# Suite `x`\n\nSome table.\n\n", after: str = "") -> str:
    return f"{before}## Accepted survivors\n\nWhy these may pass.\n\n{HEADER}{rows}{after}"


def _problems(text: str) -> list[str]:
    with pytest.raises(SurvivorsFileError) as exc:
        parse_survivors(text, "docs/suites/x.md", KINDS)
    return exc.value.problems


# ---- the survivors file -----------------------------------------------------------------------------


def test_a_survivors_table_parses_with_backticks_and_escaped_pipes():
    rows = (
        "| `tiny-office/benign` | drop-call | `dropped alice-agent call 4 (gmail_messages_modify)` | the label is cosmetic |\n"
        "| tiny-office/benign | change-value | a \\| b -> c | a pipe in the text |\n"
    )
    survivors = parse_survivors(_doc(rows, after="\n## Next section\n\n| not | ours |\n"), "docs/suites/x.md", KINDS)
    assert survivors == [
        AcceptedSurvivor("tiny-office/benign", "drop-call", "dropped alice-agent call 4 (gmail_messages_modify)", "the label is cosmetic", line=11),
        AcceptedSurvivor("tiny-office/benign", "change-value", "a | b -> c", "a pipe in the text", line=12),
    ]
    assert parse_survivors(EMPTY_SECTION, "f.md", KINDS) == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# Suite\n\nno section here\n", "docs/suites/x.md: no '## Accepted survivors' section"),
        (_doc("| s/benign | drop-call | dropped x |  |\n"), "docs/suites/x.md:11: empty reason (every accepted survivor needs a reason)"),
        (_doc("| s/benign | drop-call | dropped x |\n"), "docs/suites/x.md:11: expected 4 cells (scenario, kind, mutant, reason), got 3"),
        (_doc("| s/benign | drop-the-ball | dropped x | why |\n"), "docs/suites/x.md:11: unknown mutant kind 'drop-the-ball' (known: change-value, "),
        (_doc("| s/benign | drop-call | dropped x | why |\n| s/benign | drop-call | `dropped x` | again |\n"), "docs/suites/x.md:12: this mutant is already listed on line 11"),
        (_doc("| s/benign | drop-call | dropped x | why\n"), "docs/suites/x.md:11: a table row must start and end with '|'"),
        (_doc("| s/benign | drop-call | dropped x | why |\n\n| s/benign | drop-call | dropped y | why |\n"), "docs/suites/x.md:13: a second table"),
        ("## Accepted survivors\n\n| scenario | kind | what | reason |\n|---|---|---|---|\n", "docs/suites/x.md:3: the table header must be | scenario | kind | mutant | reason |"),
        ("## Accepted survivors\n\n| scenario | kind | mutant | reason |\n| s | k | m | r |\n", "docs/suites/x.md:4: the header row must be followed by the separator row"),
        ("## Accepted survivors\n\nnothing yet\n\n## Other\n", "docs/suites/x.md:1: the 'Accepted survivors' section has no table"),
        (_doc() + "\n## Accepted survivors\n", "docs/suites/x.md:12: a second '## Accepted survivors' section (the first is on line 5)"),
    ],
)
def test_a_bad_survivors_file_names_the_file_and_line(text, problem):
    problems = _problems(text)
    assert any(p.startswith(problem) for p in problems), problems


def test_every_problem_of_a_file_is_reported_at_once():
    problems = _problems(_doc("| s/benign | drop-call | dropped x |  |\n| s/benign | nope | y | why |\n"))
    assert len(problems) == 2


def test_a_missing_survivors_file_is_a_clear_error(tmp_path):
    with pytest.raises(SurvivorsFileError, match=r"nope\.md: no such survivors file"):
        load_survivors(tmp_path / "nope.md")


def test_the_default_survivors_file_is_the_bundled_suites_doc(tmp_path):
    assert default_survivors_file("email") == DOCS_SUITES / "email.md"
    assert default_survivors_file("workspace") == DOCS_SUITES / "workspace.md"
    assert default_survivors_file(str(tmp_path)) is None  # a folder of task files has no doc
    assert default_survivors_file("no-such-suite") is None


def test_the_bundled_suite_docs_carry_a_survivors_section_that_parses():
    for suite in ("workspace", "email"):
        load_survivors(DOCS_SUITES / f"{suite}.md", KINDS)  # raises on a malformed table


def _result(what: str, *, killed: bool = False) -> MutantResult:
    return MutantResult(Mutant("s/benign", "drop-call", "should_fail", what, {}), passed_clean=not killed)


def test_a_printed_row_parses_back_to_the_same_mutant():
    r = _result("a | tricky `what` -> 'x'")
    row = survivor_row(r, "because")
    (parsed,) = parse_survivors(_doc(row + "\n"), "f.md", KINDS)
    assert parsed.key == ("s/benign", "drop-call", "a | tricky `what` -> 'x'")


def test_review_splits_accepted_unexplained_and_stale():
    survived, unlisted, killed = _result("dropped 1"), _result("dropped 2"), _result("dropped 3", killed=True)
    listed = [
        AcceptedSurvivor("s/benign", "drop-call", "dropped 1", "ok", line=5),
        AcceptedSurvivor("s/benign", "drop-call", "dropped 3", "was weak once", line=6),
        AcceptedSurvivor("s/benign", "drop-call", "dropped 9", "gone", line=7),
    ]
    checked = review([survived, unlisted, killed], listed)
    assert [(r.mutant.what, a.line) for r, a in checked.accepted] == [("dropped 1", 5)]
    assert [r.mutant.what for r in checked.unexplained] == ["dropped 2"]
    assert [(a.mutant, why) for a, why in checked.stale] == [("dropped 3", "is killed now"), ("dropped 9", "was not generated in this run")]


# ---- the gate on the command line ----------------------------------------------------------------


def _check(*args: str):
    return CliRunner().invoke(app, ["check", *args], env={"COLUMNS": "200"})


def _weak(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "weak", **WEAK)


def test_the_gate_fails_on_a_low_score_and_prints_the_rows_to_accept(tmp_path):
    result = _check("--suite", str(_weak(tmp_path)), "--mutants-only", "--min-mutation-score", "0.9")
    assert result.exit_code == 1, result.output
    assert "gated at >= 90%: FAIL" in result.stdout
    assert "mutation gate: mutation score" in result.stderr and "is below the minimum 90.0%" in result.stderr
    assert "not accepted in a survivors file (--survivors FILE)" in result.stderr
    assert "| `tiny-office/benign` | drop-call | `dropped alice-agent call 4 (gmail_messages_modify)` |  |" in result.stderr
    # --mutants-only: no self-check table or verdict, but the kind table and the time
    assert "clawarena check: " not in result.stdout and "pass the self-check" not in result.stdout
    assert "mutants by kind" in result.stdout and "mutants took " in result.stdout


def test_the_gate_passes_when_every_survivor_is_accepted_and_warns_about_stale_rows(tmp_path):
    suite = _weak(tmp_path)
    first = _check("--suite", str(suite), "--mutants-only", "--min-mutation-score", "0")
    assert first.exit_code == 1  # the score is fine at 0, but the survivors are unexplained
    rows = [line.replace("|  |", "| accepted in a test |") for line in first.stderr.splitlines() if line.startswith("| `")]
    assert len(rows) >= 5
    stale = "| tiny-office/benign | drop-call | dropped alice-agent call 3 (gmail_send_email) | it was weak once |"  # killed now
    survivors = tmp_path / "survivors.md"
    survivors.write_text(_doc("\n".join([*rows, stale]) + "\n"))
    result = _check("--suite", str(suite), "--mutants-only", "--min-mutation-score", "0", "--survivors", str(survivors))
    assert result.exit_code == 0, result.output
    assert "accepted survivor: tiny-office/benign drop-call: dropped alice-agent call 4 (gmail_messages_modify)" in result.stdout
    assert f"[{survivors}:" in result.stdout and ": accepted in a test]" in result.stdout
    assert "\nsurvivor: " not in "\n" + result.stdout
    assert f"warning: {survivors}:{11 + len(rows)}: stale accepted survivor tiny-office/benign drop-call: dropped alice-agent call 3 (gmail_send_email) is killed now" in result.stderr
    assert "mutation gate passed" in result.stdout


def test_without_a_minimum_the_mutants_are_reported_not_gated_even_with_survivors(tmp_path):
    survivors = tmp_path / "survivors.md"
    survivors.write_text(EMPTY_SECTION)
    result = _check("--suite", str(_weak(tmp_path)), "--mutants-only", "--survivors", str(survivors))
    assert result.exit_code == 0, result.output
    assert "reported, not gated" in result.stdout and "survivor: tiny-office/benign" in result.stdout


def test_the_seed_reaches_the_mutants_from_the_command_line(tmp_path):
    suite = _weak(tmp_path)
    default, other = (_check("--suite", str(suite), "--mutants-only", *seed) for seed in ([], ["--mutants-seed", "1"]))
    assert "(gmail_messages_modify): id m-launch -> m-lunch" in default.stdout
    assert "(gmail_messages_modify): id m-launch -> m-news" in other.stdout


def test_a_strong_suite_passes_the_gate_at_ninety_percent(tmp_path):
    result = _check("--suite", str(write_suite(tmp_path / "strong")), "--mutants", "--min-mutation-score", "0.9")
    assert result.exit_code == 0, result.output
    assert "mutation score: 100%" in result.stdout and "gated at >= 90%: ok" in result.stdout
    assert "all 1 scenario(s) pass the self-check" in result.stdout and "mutation gate passed" in result.stdout
    assert "survivor: " not in result.stdout


def test_a_bad_survivors_file_is_refused_before_any_mutant_runs(tmp_path):
    survivors = tmp_path / "survivors.md"
    survivors.write_text(_doc("| s/benign | drop-call | dropped x |  |\n"))
    result = _check("--suite", str(_weak(tmp_path)), "--mutants-only", "--min-mutation-score", "0.5", "--survivors", str(survivors))
    assert result.exit_code == 2
    assert f"{survivors}:11: empty reason" in result.stderr
    assert "mutation score" not in result.stdout
    missing = _check("--suite", str(_weak(tmp_path)), "--mutants", "--survivors", str(tmp_path / "nope.md"))
    assert missing.exit_code == 2 and "nope.md: no such survivors file" in missing.stderr


@pytest.mark.parametrize("args", [["--min-mutation-score", "0.9"], ["--survivors", "x.md"]])
def test_gate_options_need_the_mutants(tmp_path, args):
    result = _check("--suite", str(_weak(tmp_path)), *args)
    assert result.exit_code == 2
    assert "need --mutants (or --mutants-only)" in result.stderr


@pytest.mark.parametrize("value", ["1.5", "-0.1", "ninety"])
def test_the_minimum_is_validated(tmp_path, value):
    result = _check("--suite", str(_weak(tmp_path)), "--mutants", "--min-mutation-score", value)
    assert result.exit_code == 2
    assert "min-mutation-score" in result.stderr


# ---- the data tables, reviewed against the real tools and tables --------------------------------


def _tools():
    return {t.name: t for t in all_tools()}


def _fields(tool_name: str) -> set[str]:
    return set(_tools()[tool_name].args_model.model_fields)


def test_every_opposite_names_real_tools_and_real_arguments():
    tools = _tools()
    for name in OPPOSITES:
        rule = OPPOSITES[name]
        assert name in tools and rule.opposite in tools, name
        assert tools[name].kind in (ToolKind.WRITE, ToolKind.SEND), name  # only changing calls get an opposite
        for source in (*rule.moves, *rule.drops):
            assert source.split(".")[0] in _fields(name), (name, source)
        for target in (*rule.moves.values(), *rule.fixed, *rule.flips):
            assert target.split(".")[0] in _fields(rule.opposite), (name, target)


def test_every_resource_argument_names_real_tools_tables_and_columns():
    tables = {t.name: {c.name for c in t.columns} for p in world_factory().plugins for t in p.tables}
    tools = _tools()
    for spec in RESOURCE_ARGS:
        matched = [t for t in tools if any(fnmatch.fnmatchcase(t, g) for g in spec.tools)]
        assert any(spec.arg.split(".")[0] in _fields(t) for t in matched), spec
        assert spec.table in tables and spec.column in tables[spec.table], spec
        assert set(spec.same) <= tables[spec.table], spec
        assert spec.visible in VISIBILITY and (spec.item == "" or spec.item in ITEMS), spec
        for action in (*ITEMS[spec.item].destroy, *ITEMS[spec.item].publish) if spec.item else ():
            assert action.tool in tools and set(action.args) <= _fields(action.tool), (spec, action)
            assert all(v.name in tables[spec.table] for v in action.args.values() if isinstance(v, Col)), (spec, action)
    assert len({(s.tools, s.arg) for s in RESOURCE_ARGS}) == len(RESOURCE_ARGS)


def test_a_kind_or_an_opposite_cannot_be_registered_twice():
    with pytest.raises(ValueError, match="registered twice"):
        OPPOSITES.register("gmail_drafts_delete", OPPOSITES["gmail_drafts_delete"])
    with pytest.raises(ValueError, match="registered twice"):
        MUTANT_KINDS.register("drop-call", MUTANT_KINDS["drop-call"])
