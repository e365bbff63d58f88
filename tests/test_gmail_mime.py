"""RFC 2822 both ways: parsing what clients send, rendering the stored message, deterministically."""

import base64
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from clawarena.services.gmail import mime


def row(**kw):
    base = {"id": "m1", "thread_id": "m1", "label_ids": ["INBOX"], "sender": "Carol <carol@x.example>", "to_addrs": ["alice@x.example"],
            "cc_addrs": [], "bcc_addrs": [], "subject": "Report", "body": "See attached.", "date_ms": 1_772_400_000_000,
            "message_id_header": "<m1@x.example>", "in_reply_to": None, "history_id": 1000, "html": None, "headers": []}  # fmt: skip
    return {**base, **kw}


ATT = {"id": "att1", "message_id": "m1", "owner": "alice", "position": 0, "filename": "r.bin", "mime_type": "application/octet-stream",
       "size": 4, "data": base64.b64encode(b"\x00\x01\x02\x03").decode(), "content_id": None}  # fmt: skip


def test_parse_multipart_with_html_and_attachments():
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Cc"], msg["Subject"] = "A <a@x.example>", "B <b@x.example>, c@x.example", "d@x.example", "Hi"
    msg["References"] = "<p1@x> <p2@x>"
    msg.set_content("plain body\n")
    msg.add_alternative("<p>html <b>body</b></p>", subtype="html")
    msg.add_attachment(b"%PDF-1", maintype="application", subtype="pdf", filename="a.pdf")
    inner = EmailMessage()
    inner["Subject"] = "forwarded"
    inner.set_content("inner")
    msg.add_attachment(inner, filename="fwd.eml")
    parsed = mime.parse(mime.parse_bytes(msg.as_bytes()))
    assert (parsed.to, parsed.cc, parsed.subject, parsed.text) == (["b@x.example", "c@x.example"], ["d@x.example"], "Hi", "plain body")
    assert parsed.html == "<p>html <b>body</b></p>" and parsed.references == ["<p1@x>", "<p2@x>"]
    assert [(a.filename, a.mime_type) for a in parsed.attachments] == [("a.pdf", "application/pdf"), ("fwd.eml", "message/rfc822")]
    assert parsed.attachments[0].data == b"%PDF-1" and b"Subject: forwarded" in parsed.attachments[1].data


def test_html_only_mail_gets_a_text_body():
    msg = EmailMessage()
    msg["To"] = "b@x.example"
    msg.set_content("<html><head><style>p{}</style></head><body><p>Hello&amp;bye</p><br>next</body></html>", subtype="html")
    parsed = mime.parse(mime.parse_bytes(msg.as_bytes()))
    assert parsed.text == "Hello&bye\n\nnext" and parsed.html.startswith("<html>")


def test_simple_message_payload_is_single_part():
    res = mime.message_resource(row(), "full")
    assert res["payload"]["mimeType"] == "text/plain" and "parts" not in res["payload"]
    assert base64.urlsafe_b64decode(res["payload"]["body"]["data"] + "==") == b"See attached."


def test_payload_and_raw_agree_and_are_deterministic():
    r = row(html="<p>See attached.</p>")
    full = mime.message_resource(r, "full", attachments=[ATT])
    mixed = full["payload"]
    assert mixed["mimeType"] == "multipart/mixed" and [p["partId"] for p in mixed["parts"]] == ["0", "1"]
    assert [p["partId"] for p in mixed["parts"][0]["parts"]] == ["0.0", "0.1"]
    assert mixed["parts"][1]["body"] == {"attachmentId": "att1", "size": 4}
    raw1 = mime.message_resource(r, "raw", attachments=[ATT])["raw"]
    assert raw1 == mime.message_resource(r, "raw", attachments=[ATT])["raw"]
    back = BytesParser(policy=policy.default).parsebytes(mime.b64url_decode(raw1))
    assert back.get_body(("plain",)).get_content().strip() == "See attached."
    (att,) = back.iter_attachments()
    assert att.get_filename() == "r.bin" and att.get_content() == b"\x00\x01\x02\x03"
    boundary = mixed["headers"][-1]["value"].split('boundary="')[1].rstrip('"')
    assert boundary.encode() in mime.b64url_decode(raw1)


def test_round_trip_keeps_the_structure():
    r = row(html="<b>x</b>", headers=[["Reply-To", "team@x.example"]], bcc_addrs=["z@x.example"])
    parsed = mime.parse(mime.parse_raw(mime.message_resource(r, "raw", attachments=[ATT])["raw"]))
    assert (parsed.text, parsed.html, parsed.bcc) == ("See attached.", "<b>x</b>", ["z@x.example"])
    assert ["Reply-To", "team@x.example"] in parsed.extra and [a.filename for a in parsed.attachments] == ["r.bin"]
