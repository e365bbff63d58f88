"""Access errors never reveal existence, in all five services, through the official clients.

For each case the caller asks for another principal's resource it may not see (`foreign`) and for one that
does not exist (`unknown`); both answers must be identical: the same HTTP status and the same error body
(with the requested id itself written as <id>, since real APIs echo it, e.g. Drive's "File not found: <id>.").
The foreign call must also change nothing and land in the ledger as a refusal.

Gmail and Calendar cover every method that names a resource; Drive, Docs and Slack a representative set of
reads and writes. One served world per service holds bob's mail, calendars, Drive files and Slack channels
that alice cannot see (and alice's Doc that bob cannot see).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from googleapiclient.errors import HttpError
from slack_sdk.errors import SlackApiError

from clawarena.services.slack.core import slack_id
from tests.conformance import drive_world
from tests.conformance.harness import Served
from tests.conformance.slack_world import BOB as SLACK_BOB
from tests.conformance.slack_world import CAROL as SLACK_CAROL
from tests.conformance.slack_world import DM_BC, WORKSPACE, cid, ts_of

ALICE, BOB, CAROL = "alice@northwind.example", "bob@northwind.example", "carol@northwind.example"
NOBODY = "nobody@northwind.example"
BOB_TEAM = "c_bobteam@group.calendar.google.com"
NO_CAL = "c_nosuchcalendar@group.calendar.google.com"
BOB_CHANNEL = "bob-push-channel"


def _raw(to: str = CAROL, subject: str = "hello") -> str:
    text = f"From: {ALICE}\r\nTo: {to}\r\nSubject: {subject}\r\n\r\nhi\r\n"
    return base64.urlsafe_b64encode(text.encode()).decode()


GMAIL = {
    "labels": [{"id": "Label_bob1", "owner": "bob", "name": "Bob private"}],
    "messages": [
        {"id": "bobmsg0001", "owner": "bob", "from": CAROL, "to": [BOB], "subject": "Salary", "body": "band 5",
         "thread": "bobthread01", "labels": ["INBOX", "Label_bob1"], "attachments": [{"filename": "a.txt", "text": "x"}]},
        {"id": "alimsg0001", "owner": "alice", "from": CAROL, "to": [ALICE], "subject": "Hi", "body": "hello", "thread": "alithread01"},
    ],
    "drafts": [{"id": "rbobdraft0001", "owner": "bob", "to": [CAROL], "subject": "draft", "body": "unsent"}],
    "filters": [{"id": "bobfilter001", "owner": "bob", "criteria": {"from": "x@elsewhere.example"}, "action": {"addLabelIds": ["STARRED"]}}],
    "send_as": [{"owner": "bob", "email": "bob.alias@northwind.example", "verification_status": "pending"}],
    "forwarding_addresses": [{"owner": "bob", "email": "bob.home@elsewhere.example"}],
    "delegates": [{"owner": "bob", "email": CAROL}],
}  # fmt: skip
CALENDAR = {
    "calendars": [{"id": BOB_TEAM, "owner": "bob", "summary": "Bob's team"}],
    "acl": [{"calendar": BOB_TEAM, "role": "reader", "scope_value": CAROL}],
    "events": [
        {"id": "bobevent01", "calendar": "bob", "summary": "Interview", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T11:00:00Z"},
        {"id": "bobweekly1", "calendar": "bob", "summary": "1:1", "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=4"], "time_zone": "UTC",
         "start": "2026-03-04T10:00:00", "end": "2026-03-04T10:30:00"},
        {"id": "aliceev001", "calendar": "alice", "summary": "Focus", "start": "2026-03-03T12:00:00Z", "end": "2026-03-03T13:00:00Z"},
    ],
}  # fmt: skip
# One world per service (Docs rides on Drive), so a service that cannot build fails only its own cases.
WORLDS: dict[str, Callable[[], dict[str, Any]]] = {
    "gmail": lambda: {"gmail": GMAIL},
    "calendar": lambda: {"calendar": CALENDAR},
    "drive": drive_world.world,
    "docs": drive_world.world,
    "slack": lambda: WORKSPACE,
}

EVENT = {"summary": "x", "start": {"dateTime": "2026-03-05T10:00:00Z"}, "end": {"dateTime": "2026-03-05T11:00:00Z"}}
CHANNEL = {"id": "alice-watch-1", "type": "web_hook", "address": "https://hooks.example/alice"}
RULE = {"role": "reader", "scope": {"type": "user", "value": CAROL}}
FREEBUSY = {"timeMin": "2026-03-02T00:00:00Z", "timeMax": "2026-03-09T00:00:00Z"}
DOC_EDIT = {"requests": [{"insertText": {"location": {"index": 1}, "text": "x"}}]}


@dataclass(frozen=True)
class Case:
    """One method asked about a resource the caller may not see (`foreign`) and one that does not exist (`unknown`)."""

    service: str  # gmail, calendar, drive, docs, slack: the client used
    method: str
    call: Callable[[Any, str, "Env"], Any]  # (client, resource id, env) -> the executed request's result
    foreign: str
    unknown: str
    caller: str = "alice"
    # False where the id names nothing outside the caller's own namespace (a label id of one's own mailbox,
    # an event id on one's own calendar): no other principal's data is touched, so there is nothing to refuse.
    refused: bool = True

    @property
    def id(self) -> str:
        return f"{self.service}:{self.method}:{self.foreign}"


@dataclass
class Env:
    served: Served

    def ts(self, ref: str) -> str:
        assert self.served.world is not None
        return ts_of(self.served.world, ref)


def _gmail() -> list[Case]:
    m = lambda g: g.users().messages()  # noqa: E731
    t = lambda g: g.users().threads()  # noqa: E731
    d = lambda g: g.users().drafts()  # noqa: E731
    s = lambda g: g.users().settings()  # noqa: E731
    mod = {"addLabelIds": ["STARRED"]}
    cases = [
        # another mailbox by address
        ("users.messages.list", lambda g, r, e: m(g).list(userId=r).execute(), BOB, NOBODY),
        ("users.getProfile", lambda g, r, e: g.users().getProfile(userId=r).execute(), BOB, NOBODY),
        ("users.messages.send(userId)", lambda g, r, e: m(g).send(userId=r, body={"raw": _raw()}).execute(), BOB, NOBODY),
        ("users.labels.create(userId)", lambda g, r, e: g.users().labels().create(userId=r, body={"name": "x"}).execute(), BOB, NOBODY),
        ("users.settings.filters.list(userId)", lambda g, r, e: s(g).filters().list(userId=r).execute(), BOB, NOBODY),
        ("users.settings.forwardingAddresses.create(userId)",
         lambda g, r, e: s(g).forwardingAddresses().create(userId=r, body={"forwardingEmail": CAROL}).execute(), BOB, NOBODY),
        ("users.settings.updateVacation(userId)",
         lambda g, r, e: s(g).updateVacation(userId=r, body={"enableAutoReply": False}).execute(), BOB, NOBODY),
        # messages
        ("users.messages.get", lambda g, r, e: m(g).get(userId="me", id=r).execute(), "bobmsg0001", "nosuchmsg01"),
        ("users.messages.modify", lambda g, r, e: m(g).modify(userId="me", id=r, body=mod).execute(), "bobmsg0001", "nosuchmsg01"),
        ("users.messages.trash", lambda g, r, e: m(g).trash(userId="me", id=r).execute(), "bobmsg0001", "nosuchmsg01"),
        ("users.messages.untrash", lambda g, r, e: m(g).untrash(userId="me", id=r).execute(), "bobmsg0001", "nosuchmsg01"),
        ("users.messages.delete", lambda g, r, e: m(g).delete(userId="me", id=r).execute(), "bobmsg0001", "nosuchmsg01"),
        ("users.messages.batchModify", lambda g, r, e: m(g).batchModify(userId="me", body={"ids": [r], **mod}).execute(),
         "bobmsg0001", "nosuchmsg01"),
        ("users.messages.batchDelete", lambda g, r, e: m(g).batchDelete(userId="me", body={"ids": [r]}).execute(), "bobmsg0001", "nosuchmsg01"),
        ("users.messages.attachments.get", lambda g, r, e: m(g).attachments().get(userId="me", messageId=r, id="att0").execute(),
         "bobmsg0001", "nosuchmsg01"),
        ("users.messages.send(threadId)", lambda g, r, e: m(g).send(userId="me", body={"raw": _raw(), "threadId": r}).execute(),
         "bobthread01", "nosuchthread1"),
        # threads
        ("users.threads.get", lambda g, r, e: t(g).get(userId="me", id=r).execute(), "bobthread01", "nosuchthread1"),
        ("users.threads.modify", lambda g, r, e: t(g).modify(userId="me", id=r, body=mod).execute(), "bobthread01", "nosuchthread1"),
        ("users.threads.trash", lambda g, r, e: t(g).trash(userId="me", id=r).execute(), "bobthread01", "nosuchthread1"),
        ("users.threads.untrash", lambda g, r, e: t(g).untrash(userId="me", id=r).execute(), "bobthread01", "nosuchthread1"),
        ("users.threads.delete", lambda g, r, e: t(g).delete(userId="me", id=r).execute(), "bobthread01", "nosuchthread1"),
        # drafts
        ("users.drafts.get", lambda g, r, e: d(g).get(userId="me", id=r).execute(), "rbobdraft0001", "rnosuchdraft1"),
        ("users.drafts.update", lambda g, r, e: d(g).update(userId="me", id=r, body={"message": {"raw": _raw()}}).execute(),
         "rbobdraft0001", "rnosuchdraft1"),
        ("users.drafts.delete", lambda g, r, e: d(g).delete(userId="me", id=r).execute(), "rbobdraft0001", "rnosuchdraft1"),
        ("users.drafts.send", lambda g, r, e: d(g).send(userId="me", body={"id": r}).execute(), "rbobdraft0001", "rnosuchdraft1"),
        ("users.drafts.create(threadId)",
         lambda g, r, e: d(g).create(userId="me", body={"message": {"raw": _raw(), "threadId": r}}).execute(), "bobthread01", "nosuchthread1"),
        # settings
        ("users.settings.filters.get", lambda g, r, e: s(g).filters().get(userId="me", id=r).execute(), "bobfilter001", "nosuchfilter1"),
        ("users.settings.filters.delete", lambda g, r, e: s(g).filters().delete(userId="me", id=r).execute(), "bobfilter001", "nosuchfilter1"),
    ]
    out = [Case("gmail", name, fn, foreign, unknown) for name, fn, foreign, unknown in cases]
    # Ids that live in the caller's own mailbox namespace: bob's label, alias, forwarding address or delegate
    # means nothing in alice's mailbox, so the answer is the ordinary not-found of her own mailbox.
    own_namespace = [
        ("users.labels.get", lambda g, r, e: g.users().labels().get(userId="me", id=r).execute(), "Label_bob1", "Label_nosuch"),
        ("users.labels.update", lambda g, r, e: g.users().labels().update(userId="me", id=r, body={"name": "y"}).execute(),
         "Label_bob1", "Label_nosuch"),
        ("users.labels.patch", lambda g, r, e: g.users().labels().patch(userId="me", id=r, body={"name": "y"}).execute(),
         "Label_bob1", "Label_nosuch"),
        ("users.labels.delete", lambda g, r, e: g.users().labels().delete(userId="me", id=r).execute(), "Label_bob1", "Label_nosuch"),
        ("users.messages.modify(label)",
         lambda g, r, e: m(g).modify(userId="me", id="alimsg0001", body={"addLabelIds": [r]}).execute(), "Label_bob1", "Label_nosuch"),
        ("users.settings.sendAs.get", lambda g, r, e: s(g).sendAs().get(userId="me", sendAsEmail=r).execute(),
         "bob.alias@northwind.example", "no.alias@northwind.example"),
        ("users.settings.sendAs.update",
         lambda g, r, e: s(g).sendAs().update(userId="me", sendAsEmail=r, body={"displayName": "x"}).execute(),
         "bob.alias@northwind.example", "no.alias@northwind.example"),
        ("users.settings.sendAs.patch",
         lambda g, r, e: s(g).sendAs().patch(userId="me", sendAsEmail=r, body={"displayName": "x"}).execute(),
         "bob.alias@northwind.example", "no.alias@northwind.example"),
        ("users.settings.sendAs.delete", lambda g, r, e: s(g).sendAs().delete(userId="me", sendAsEmail=r).execute(),
         "bob.alias@northwind.example", "no.alias@northwind.example"),
        ("users.settings.sendAs.verify", lambda g, r, e: s(g).sendAs().verify(userId="me", sendAsEmail=r).execute(),
         "bob.alias@northwind.example", "no.alias@northwind.example"),
        ("users.settings.forwardingAddresses.get",
         lambda g, r, e: s(g).forwardingAddresses().get(userId="me", forwardingEmail=r).execute(),
         "bob.home@elsewhere.example", "no.home@elsewhere.example"),
        ("users.settings.forwardingAddresses.delete",
         lambda g, r, e: s(g).forwardingAddresses().delete(userId="me", forwardingEmail=r).execute(),
         "bob.home@elsewhere.example", "no.home@elsewhere.example"),
        ("users.settings.delegates.get", lambda g, r, e: s(g).delegates().get(userId="me", delegateEmail=r).execute(), CAROL, NOBODY),
        ("users.settings.delegates.delete", lambda g, r, e: s(g).delegates().delete(userId="me", delegateEmail=r).execute(), CAROL, NOBODY),
    ]
    out += [Case("gmail", name, fn, foreign, unknown, refused=False) for name, fn, foreign, unknown in own_namespace]
    return out


def _calendar() -> list[Case]:
    ev = lambda c: c.events()  # noqa: E731
    cals = [
        ("calendars.get", lambda c, r, e: c.calendars().get(calendarId=r).execute()),
        ("calendars.update", lambda c, r, e: c.calendars().update(calendarId=r, body={"summary": "x"}).execute()),
        ("calendars.patch", lambda c, r, e: c.calendars().patch(calendarId=r, body={"summary": "x"}).execute()),
        ("calendars.delete", lambda c, r, e: c.calendars().delete(calendarId=r).execute()),
        ("calendars.clear", lambda c, r, e: c.calendars().clear(calendarId=r).execute()),
        ("calendars.transferOwnership",
         lambda c, r, e: c.calendars().transferOwnership(calendarId=r, newDataOwner=CAROL, useAdminAccess=True).execute()),
        ("calendarList.get", lambda c, r, e: c.calendarList().get(calendarId=r).execute()),
        ("calendarList.insert", lambda c, r, e: c.calendarList().insert(body={"id": r}).execute()),
        ("calendarList.update", lambda c, r, e: c.calendarList().update(calendarId=r, body={"hidden": True}).execute()),
        ("calendarList.patch", lambda c, r, e: c.calendarList().patch(calendarId=r, body={"hidden": True}).execute()),
        ("calendarList.delete", lambda c, r, e: c.calendarList().delete(calendarId=r).execute()),
        ("acl.list", lambda c, r, e: c.acl().list(calendarId=r).execute()),
        ("acl.get", lambda c, r, e: c.acl().get(calendarId=r, ruleId=f"user:{CAROL}").execute()),
        ("acl.insert", lambda c, r, e: c.acl().insert(calendarId=r, body=RULE).execute()),
        ("acl.update", lambda c, r, e: c.acl().update(calendarId=r, ruleId=f"user:{CAROL}", body=RULE).execute()),
        ("acl.patch", lambda c, r, e: c.acl().patch(calendarId=r, ruleId=f"user:{CAROL}", body={"role": "writer"}).execute()),
        ("acl.delete", lambda c, r, e: c.acl().delete(calendarId=r, ruleId=f"user:{CAROL}").execute()),
        ("acl.watch", lambda c, r, e: c.acl().watch(calendarId=r, body=CHANNEL).execute()),
        ("events.list", lambda c, r, e: ev(c).list(calendarId=r).execute()),
        ("events.get", lambda c, r, e: ev(c).get(calendarId=r, eventId="bobevent01").execute()),
        ("events.insert", lambda c, r, e: ev(c).insert(calendarId=r, body=EVENT).execute()),
        ("events.update", lambda c, r, e: ev(c).update(calendarId=r, eventId="bobevent01", body=EVENT).execute()),
        ("events.patch", lambda c, r, e: ev(c).patch(calendarId=r, eventId="bobevent01", body={"summary": "x"}).execute()),
        ("events.delete", lambda c, r, e: ev(c).delete(calendarId=r, eventId="bobevent01").execute()),
        ("events.move(source)", lambda c, r, e: ev(c).move(calendarId=r, eventId="bobevent01", destination=ALICE).execute()),
        ("events.move(destination)", lambda c, r, e: ev(c).move(calendarId="primary", eventId="aliceev001", destination=r).execute()),
        ("events.quickAdd", lambda c, r, e: ev(c).quickAdd(calendarId=r, text="Lunch tomorrow at noon").execute()),
        ("events.instances", lambda c, r, e: ev(c).instances(calendarId=r, eventId="bobweekly1").execute()),
        ("events.import", lambda c, r, e: ev(c).import_(calendarId=r, body={**EVENT, "iCalUID": "imp-1@example.com"}).execute()),
        ("events.watch", lambda c, r, e: ev(c).watch(calendarId=r, body=CHANNEL).execute()),
    ]
    out = []
    for name, fn in cals:
        out.append(Case("calendar", name, fn, BOB, NOBODY))  # a colleague's primary calendar
        out.append(Case("calendar", name, fn, BOB_TEAM, NO_CAL))  # a secondary calendar
    # answered 200 with a per-calendar notFound (nothing to refuse): the whole answer must be the same
    freebusy = lambda c, r, e: c.freebusy().query(body={**FREEBUSY, "items": [{"id": r}]}).execute()  # noqa: E731
    out += [Case("calendar", "freebusy.query", freebusy, cal, missing, refused=False) for cal, missing in ((BOB, NOBODY), (BOB_TEAM, NO_CAL))]
    out.append(Case("calendar", "channels.stop", lambda c, r, e: c.channels().stop(body={"id": r}).execute(), BOB_CHANNEL, "no-such-channel"))
    # event ids on the caller's own calendar: bob's event id names nothing there
    own = [
        ("events.get(eventId)", lambda c, r, e: ev(c).get(calendarId="primary", eventId=r).execute()),
        ("events.patch(eventId)", lambda c, r, e: ev(c).patch(calendarId="primary", eventId=r, body={"summary": "x"}).execute()),
        ("events.delete(eventId)", lambda c, r, e: ev(c).delete(calendarId="primary", eventId=r).execute()),
        ("events.instances(eventId)", lambda c, r, e: ev(c).instances(calendarId="primary", eventId=r).execute()),
        ("events.move(eventId)", lambda c, r, e: ev(c).move(calendarId="primary", eventId=r, destination=ALICE).execute()),
    ]
    out += [Case("calendar", name, fn, "bobweekly1", "nosuchevent1", refused=False) for name, fn in own]
    return out


def _drive() -> list[Case]:
    f = lambda d: d.files()  # noqa: E731
    cases = [
        ("files.get", lambda d, r, e: f(d).get(fileId=r).execute()),
        ("files.update", lambda d, r, e: f(d).update(fileId=r, body={"name": "x"}).execute()),
        ("files.delete", lambda d, r, e: f(d).delete(fileId=r).execute()),
        ("files.copy", lambda d, r, e: f(d).copy(fileId=r, body={}).execute()),
        ("files.export", lambda d, r, e: f(d).export(fileId=r, mimeType="text/plain").execute()),
        ("permissions.list", lambda d, r, e: d.permissions().list(fileId=r).execute()),
        ("permissions.create",
         lambda d, r, e: d.permissions().create(fileId=r, body={"type": "user", "role": "reader", "emailAddress": CAROL}).execute()),
        ("comments.list", lambda d, r, e: d.comments().list(fileId=r, fields="*").execute()),
        ("comments.create", lambda d, r, e: d.comments().create(fileId=r, body={"content": "x"}, fields="*").execute()),
        ("revisions.list", lambda d, r, e: d.revisions().list(fileId=r).execute()),
    ]
    return [Case("drive", name, fn, "f-bob", "f-nosuchfile") for name, fn in cases]


def _docs() -> list[Case]:
    cases = [
        ("documents.get", lambda d, r, e: d.documents().get(documentId=r).execute()),
        ("documents.batchUpdate", lambda d, r, e: d.documents().batchUpdate(documentId=r, body=DOC_EDIT).execute()),
    ]
    return [Case("docs", name, fn, "d-notes", "d-nosuchdoc", caller="bob") for name, fn in cases]


def _slack() -> list[Case]:
    finance, nowhere = cid("finance"), "CNOSUCHTHING"
    cases = [
        ("conversations.info", lambda s, r, e: s.conversations_info(channel=r), finance, nowhere),
        ("conversations.history", lambda s, r, e: s.conversations_history(channel=r), finance, nowhere),
        ("conversations.history(im)", lambda s, r, e: s.conversations_history(channel=r), DM_BC, "DNOSUCHTHING"),
        ("conversations.members", lambda s, r, e: s.conversations_members(channel=r), finance, nowhere),
        ("conversations.replies", lambda s, r, e: s.conversations_replies(channel=r, ts=e.ts("f1")), finance, nowhere),
        ("conversations.join", lambda s, r, e: s.conversations_join(channel=r), finance, nowhere),
        ("conversations.invite", lambda s, r, e: s.conversations_invite(channel=r, users=SLACK_CAROL), finance, nowhere),
        ("conversations.kick", lambda s, r, e: s.conversations_kick(channel=r, user=SLACK_BOB), finance, nowhere),
        ("conversations.setTopic", lambda s, r, e: s.conversations_setTopic(channel=r, topic="x"), finance, nowhere),
        ("chat.postMessage", lambda s, r, e: s.chat_postMessage(channel=r, text="x"), finance, nowhere),
        ("chat.update", lambda s, r, e: s.chat_update(channel=r, ts=e.ts("f1"), text="x"), finance, nowhere),
        ("chat.delete", lambda s, r, e: s.chat_delete(channel=r, ts=e.ts("f1")), finance, nowhere),
        ("reactions.add", lambda s, r, e: s.reactions_add(channel=r, timestamp=e.ts("f1"), name="eyes"), finance, nowhere),
        ("pins.add", lambda s, r, e: s.pins_add(channel=r, timestamp=e.ts("f1")), finance, nowhere),
        ("files.info", lambda s, r, e: s.files_info(file=r), slack_id("F", "payroll"), "FNOSUCHFILE"),
        ("files.delete", lambda s, r, e: s.files_delete(file=r), slack_id("F", "payroll"), "FNOSUCHFILE"),
        ("reminders.info", lambda s, r, e: s.reminders_info(reminder=r), "RmBOB1", "RmNOSUCH1"),
        ("reminders.delete", lambda s, r, e: s.reminders_delete(reminder=r), "RmBOB1", "RmNOSUCH1"),
    ]
    return [Case("slack", name, fn, foreign, unknown) for name, fn, foreign, unknown in cases]


CASES = _gmail() + _calendar() + _drive() + _docs() + _slack()


@pytest.fixture(scope="module")
def envs():
    """The served world of a service, built on first use and stopped at the end of the module."""
    built: dict[str, Env] = {}

    def get(service: str) -> Env:
        if service not in built:
            served = Served()
            built[service] = Env(served)
            served.start(WORLDS[service]())
            if service == "calendar":
                bob = served.google("calendar", "bob")
                bob.events().watch(calendarId="primary", body={"id": BOB_CHANNEL, "type": "web_hook", "address": "https://hooks.example/bob"}).execute()
        return built[service]

    yield get
    for env in built.values():
        env.served.stop()


def _client(env: Env, case: Case):
    if case.service == "slack":
        return env.served.slack(case.caller)
    return env.served.google(case.service, case.caller)


def _answer(env: Env, case: Case, rid: str) -> tuple[Any, str]:
    """(status, body) of the call, the body as canonical JSON with the requested id written as <id>."""
    try:
        status, body = "ok", case.call(_client(env, case), rid, env)
    except HttpError as exc:
        status, body = exc.resp.status, json.loads(exc.content or b"null")
    except SlackApiError as exc:
        status, body = exc.response.status_code, exc.response.data
    return status, json.dumps(body, sort_keys=True).replace(rid, "<id>")


def test_every_case_names_a_distinct_call():
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.service for c in CASES} == {"gmail", "calendar", "drive", "docs", "slack"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_hidden_resource_answers_like_a_missing_one(envs, case):
    env = envs(case.service)
    world = env.served.world
    assert world is not None
    before = world.state_hash()
    unknown = _answer(env, case, case.unknown)
    foreign = _answer(env, case, case.foreign)
    assert world.state_hash() == before, f"{case.method} on {case.foreign} changed the world"
    assert foreign[0] != "ok" or case.method == "freebusy.query", f"{case.method} served another principal's {case.foreign}: {foreign}"
    assert foreign == unknown, f"{case.method}: another principal's resource answers {foreign}, a missing one {unknown}"


@pytest.mark.parametrize("case", [c for c in CASES if c.refused], ids=lambda c: c.id)
def test_a_hidden_resource_is_recorded_as_refused(envs, case):
    env = envs(case.service)
    world = env.served.world
    assert world is not None
    count = len(world.ledger.of_kind("refused"))
    _answer(env, case, case.foreign)
    assert len(world.ledger.of_kind("refused")) == count + 1, f"{case.method} on {case.foreign} was not recorded as a refusal"
