import pytest

from clawarena.services.base import ServiceError
from clawarena.services.gmail.search import compile_query

NOW = 1_772_500_000_000  # ms
DAY = 86_400_000


def row(**kw):
    base = {"sender": "Carol <carol@acme.example>", "to_addrs": ["alice@x.example"], "cc_addrs": [], "bcc_addrs": [],
            "subject": "Budget review", "body": "The Q3 numbers are in.", "label_ids": ["INBOX", "UNREAD"], "date_ms": NOW - DAY}  # fmt: skip
    return {**base, **kw}


@pytest.mark.parametrize(
    "q, expected",
    [
        ("from:carol", True),
        ("from:dana", False),
        ("to:alice", True),
        ("subject:budget", True),
        ('subject:"budget review"', True),
        ('"q3 numbers"', True),
        ("is:unread", True),
        ("is:read", False),
        ("-is:unread", False),
        ("label:inbox", True),
        ("label:projects", False),
        ("newer_than:2d", True),
        ("older_than:2d", False),
        ("from:dana OR subject:budget", True),
        ("from:dana OR subject:nothing", False),
        ("{from:dana subject:budget}", True),
        ("(from:dana OR from:carol) is:unread", True),
        ("-(from:dana OR from:carol)", False),
        ("after:2020/01/01 before:2100/01/01", True),
        ("numbers", True),
    ],
)
def test_query_language(q, expected):
    assert compile_query(q, NOW, {"Label_1": "Projects"})(row()) is expected


def test_user_label_names_resolve():
    pred = compile_query("label:projects", NOW, {"Label_1": "Projects"})
    assert pred(row(label_ids=["Label_1"]))


@pytest.mark.parametrize("q", ["(from:a", "from:a)", "is:sleepy", "newer_than:soon"])
def test_bad_queries_are_invalid_argument(q):
    with pytest.raises(ServiceError) as info:
        compile_query(q, NOW)
    assert info.value.code == 400
