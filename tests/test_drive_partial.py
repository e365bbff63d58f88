"""The `fields` selector and Drive's default partial responses, as units."""

import threading

import pytest

from clawarena.services.base import ServiceError, media_result
from clawarena.services.drive import TOOLS
from clawarena.services.drive.partial import DEFAULTS, FILE_ONE, select, with_partial_responses
from clawarena.services.fields import MAX_DEPTH, apply_fields, parse_fields


def _parse_within(expr: str, seconds: float = 5.0):
    """parse_fields on a thread: a selector must be answered (parsed or refused), never loop forever."""
    out: dict = {}

    def run():
        try:
            out["value"] = parse_fields(expr)
        except ValueError as exc:
            out["error"] = str(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"parse_fields({expr!r}) did not return"
    return out


def test_selectors_parse_into_nested_keys():
    assert parse_fields("files(id,name),nextPageToken") == {"files": {"id": None, "name": None}, "nextPageToken": None}
    assert parse_fields("a/b(c, d),a/e") == {"a": {"b": {"c": None, "d": None}, "e": None}}
    assert parse_fields("files(id),files(name)") == {"files": {"id": None, "name": None}}


@pytest.mark.parametrize("bad", ["x)", ")", "files(id", "a(b)c", "a b", "/a", "a/", "a,(b)", "(" * 50 + ")" * 50])
def test_malformed_selectors_are_refused_quickly(bad):
    out = _parse_within(bad)
    assert "error" in out, out


def test_deep_selectors_are_refused_not_recursed():
    assert "error" in _parse_within("a(" * (MAX_DEPTH + 5) + "b" + ")" * (MAX_DEPTH + 5))
    assert "error" in _parse_within("a/" * (MAX_DEPTH + 5) + "b")
    assert "value" in _parse_within("a(" * 5 + "b" + ")" * 5)


def test_apply_keeps_what_is_selected_and_star_keeps_all():
    value = {"kind": "k", "files": [{"id": "1", "name": "n", "size": "3"}], "extra": 1}
    assert apply_fields(value, parse_fields("files(id)")) == {"files": [{"id": "1"}]}
    assert apply_fields(value, parse_fields("*")) == value
    assert apply_fields(value, parse_fields("files")) == {"files": value["files"]}


def test_select_uses_the_default_and_leaves_media_alone():
    file = {"kind": "drive#file", "id": "1", "name": "n", "mimeType": "text/plain", "owners": []}
    assert select(file, None, FILE_ONE) == {"kind": "drive#file", "id": "1", "name": "n", "mimeType": "text/plain"}
    assert select(file, "owners", FILE_ONE) == {"owners": []}
    media = media_result(b"bytes", "text/plain")
    assert select(media, None, FILE_ONE) is media
    with pytest.raises(ServiceError) as exc:
        select(file, "name(", FILE_ONE)
    assert exc.value.code == 400 and exc.value.reason == "invalidParameter"


def test_every_default_names_a_drive_tool_and_those_tools_take_fields():
    by_name = {t.name: t for t in TOOLS}
    for name in DEFAULTS:
        assert "fields" in by_name[name].args_model.model_fields, name
    assert "fields" not in by_name["drive_read_file"].args_model.model_fields
    with pytest.raises(ValueError, match="do not exist"):
        with_partial_responses(tuple(t for t in TOOLS if t.name != "drive_files_get"))
