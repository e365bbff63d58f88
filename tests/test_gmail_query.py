"""The Gmail `q` language beyond the basics: operator groups, `me`, attachments, sizes, spam/trash scope."""

import pytest

from clawarena.services.base import ServiceError
from clawarena.services.gmail.search import compile_query, includes_spam_trash

NOW = 1_772_500_000_000
DAY = 86_400_000


def row(**kw):
    base = {"sender": "Carol Diaz <carol@acme.example>", "to_addrs": ["alice@x.example"], "cc_addrs": ["dan@x.example"],
            "bcc_addrs": [], "subject": "Dinner and a movie", "body": "Friday at eight.", "label_ids": ["INBOX", "Label_7"],
            "date_ms": NOW - DAY, "message_id_header": "<m1@acme.example>", "headers": [["List-Id", "<team.acme.example>"]],
            "_attachments": [("Menu.PDF", "application/pdf")], "_size": 50_000}  # fmt: skip
    return {**base, **kw}


@pytest.mark.parametrize(
    "q, expected",
    [
        ("subject:(dinner movie)", True),
        ("subject:(dinner opera)", False),
        ("subject:(dinner OR opera)", True),
        ("from:{dana carol}", True),
        ("-subject:(dinner movie)", False),
        ('subject:"and a movie"', True),
        ("dinner AND friday", True),
        ("to:dan", True),  # to: covers Cc and Bcc as well
        ("cc:alice", False),
        ("to:me", True),
        ("from:me", False),
        ("has:attachment", True),
        ("filename:pdf", True),
        ("filename:menu.pdf", True),
        ("filename:application/pdf", True),
        ("filename:docx", False),
        ("menu.pdf", True),  # free text covers attachment names
        ("larger:10K", True),
        ("larger:1M", False),
        ("smaller:1M", True),
        ("size:49000", True),
        ("has:userlabels", True),
        ("has:nouserlabels", False),
        ("label:clients-acme", True),
        ("label:clients/acme", True),
        ("category:primary", False),
        ("list:team.acme.example", True),
        ("rfc822msgid:<m1@acme.example>", True),
        ("older:2100/01/01 newer:2020/01/01", True),
        ("+friday", True),
        ("in:anywhere", True),
        ("is:unimportant", True),
    ],
)
def test_extended_operators(q, expected):
    labels = {"Label_7": "Clients/Acme"}
    assert compile_query(q, NOW, labels, me="alice@x.example")(row()) is expected


@pytest.mark.parametrize("q", ["subject:(", "{}", "()", "larger:big", "category:nope"])
def test_malformed_queries_are_invalid(q):
    with pytest.raises(ServiceError) as info:
        compile_query(q, NOW)
    assert info.value.code == 400


@pytest.mark.parametrize(
    "q, expected",
    [("in:trash", True), ("label:spam", True), ("in:anywhere budget", True), ("is:unread", False), ("trash", False), (None, False)],
)
def test_queries_that_name_spam_or_trash(q, expected):
    assert includes_spam_trash(q) is expected
