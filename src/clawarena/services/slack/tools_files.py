"""files.*: list, info, delete, the legacy multipart upload, and the v2 external upload flow.

files_upload_v2 (slack_sdk) = files.getUploadURLExternal -> POST bytes to the returned
`upload_url` (served here as /api/_upload/{fileId}) -> files.completeUploadExternal.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any

from clawarena.services.base import ServiceContext, decode_media
from clawarena.services.slack import permissions
from clawarena.services.slack.api import method
from clawarena.services.slack.args import CsvList, Int, JsonArg, OptInt, OptStr, Str
from clawarena.services.slack.core import Slack, cursor_page, err, file_kind, meta, new_id
from clawarena.services.slack.tables import FILES
from clawarena.services.slack.uploads import UPLOAD_PREFIX, upload_signature
from clawarena.tools.core import RestBinding, ToolKind, WireOnly, tool


def store_content(data: bytes) -> tuple[str, bool]:
    """Text when the bytes are UTF-8, else base64 (and `binary`)."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return base64.b64encode(data).decode(), True


def create_file(
    s: Slack, name: str, title: str | None, data: bytes, *, state: str = "complete", filetype: str | None = None,
    snippet_type: str | None = None, alt_txt: str | None = None, expected: int | None = None, fid: str | None = None,
    created: int | None = None, ref: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    mimetype, ftype = file_kind(name, None, filetype if filetype and filetype != "auto" else None)
    content, binary = store_content(data)
    row = {
        "id": fid or new_id(s.ctx, "F"), "user": s.me, "name": name, "title": title or name, "mimetype": mimetype,
        "filetype": ftype, "size": len(data), "content": content, "binary": binary,
        "created": s.now if created is None else created, "channels": [], "state": state, "expected_length": expected,
        "alt_txt": alt_txt, "snippet_type": snippet_type, "ref": ref,
    }  # fmt: skip
    s.store.insert(FILES.name, row)
    return row


def file_text(row: dict[str, Any]) -> str:
    return "" if row["binary"] else row["content"]


def share(s: Slack, files: list[dict[str, Any]], chans: list[dict[str, Any]], comment: str | None, thread_ts: str | None) -> None:
    """Post one message carrying `files` in each channel; the files' content reaches its members."""
    from clawarena.services.slack.tools_chat import thread_parent

    for chan in chans:
        parent = thread_parent(s, chan["id"], thread_ts) if thread_ts else None
        msg = s.insert_message(chan["id"], s.me, comment or "", thread_ts=parent, files=[f["id"] for f in files])
        for f in files:
            if chan["id"] not in f["channels"]:
                f["channels"] = [*f["channels"], chan["id"]]
                s.store.update(FILES.name, {"id": f["id"]}, {"channels": f["channels"]})
        body = "\n".join([comment or ""] + [f"[file {f['name']}: {f['title']}]\n{file_text(f)}" for f in files]).strip()
        s.deliver(chan, body, subject=f"{s.label(chan)} (file)", ref=f"{chan['id']}/{msg['ts']}")


def visible_file(s: Slack, fid: str | None) -> dict[str, Any]:
    row = s.file_row(fid or "")
    if row is None or (row["state"] != "complete" and row["user"] != s.me):
        raise err("file_not_found")
    if not s.can_see_file(row):
        raise err("file_not_found", denied=True)
    return row


def share_targets(s: Slack, refs: list[str]) -> list[dict[str, Any]]:
    return [s.access(ref, names=True, write=True, member=True) for ref in dict.fromkeys(refs)]


# ---- legacy upload ------------------------------------------------------------------------
@method(ToolKind.SEND, "files.upload")
def files_upload(
    ctx: ServiceContext,
    channels: CsvList = None,
    content: OptStr = None,
    file: Annotated[JsonArg, WireOnly()] = None,
    filename: OptStr = None,
    filetype: OptStr = None,
    initial_comment: OptStr = None,
    thread_ts: OptStr = None,
    title: OptStr = None,
) -> dict[str, Any]:
    """Upload a file (or create a text snippet from `content`) and optionally share it in channels.

    Args:
        channels: channel ids (or '#names') to share it in; members can read it.
        content: the file's text content (clients may send a multipart `file` instead).
        filename: the file name.
        filetype: a Slack file type (e.g. text, python, csv); default from the name.
        initial_comment: a message posted with the file.
        thread_ts: share it as a reply in this thread.
        title: the file's title.
    """
    s = Slack(ctx)
    if isinstance(file, dict) and "data" in file:
        try:
            data = base64.b64decode(file["data"])
        except (binascii.Error, ValueError):
            raise err("invalid_arguments") from None
        name = filename or file.get("filename") or "file"
    elif content is not None:
        data, name = content.encode(), filename or "-.txt"
    else:
        raise err("no_file_data")
    targets = share_targets(s, channels or [])
    row = create_file(s, name, title, data, filetype=filetype, snippet_type=(filetype or "text") if content is not None else None)
    if targets:
        share(s, [row], targets, initial_comment, thread_ts)
    return {"file": s.file_object(s.file_row(row["id"]))}  # type: ignore[arg-type]


# ---- v2 upload flow -------------------------------------------------------------------------
@method(ToolKind.WRITE, "files.getUploadURLExternal")
def files_get_upload_url_external(
    ctx: ServiceContext,
    filename: Str,
    length: Int,
    alt_txt: OptStr = None,
    snippet_type: OptStr = None,
) -> dict[str, Any]:
    """Start an upload: get a file id and a URL to POST the bytes to (then call files.completeUploadExternal).

    Args:
        filename: the file name.
        length: the size in bytes.
        alt_txt: a description of an image.
        snippet_type: a syntax type for snippets (e.g. python).
    """
    s = Slack(ctx)
    if not filename:
        raise err("invalid_arguments")
    if length < 0:
        raise err("invalid_arguments")
    row = create_file(s, filename, None, b"", state="pending", snippet_type=snippet_type, alt_txt=alt_txt, expected=length)
    token = ctx.world.directory.tokens.get(ctx.principal.id, "")
    base = ctx.base_url or "https://files.slack.com"  # over REST: this server, so clients can POST the bytes
    url = f"{base}{UPLOAD_PREFIX}{row['id']}?sig={upload_signature(token, row['id'])}"
    return {"upload_url": url, "file_id": row["id"]}


@tool(ToolKind.WRITE, name="slack_files_upload_content", rest=RestBinding("POST", UPLOAD_PREFIX + "{fileId}", media="media"))
def files_upload_content(
    ctx: ServiceContext,
    file_id: str,
    content: str | None = None,
    media: Annotated[dict[str, Any] | None, WireOnly()] = None,
) -> dict[str, Any]:
    """Send the bytes of a file started with files.getUploadURLExternal (the upload_url step).

    Args:
        file_id: the file id from files.getUploadURLExternal.
        content: the file's text content.
    """
    s = Slack(ctx)
    row = s.file_row(file_id)
    if row is None:
        raise err("file_not_found")
    if row["user"] != s.me:  # someone else's upload: answered like an unknown id
        raise err("file_not_found", denied=True)
    if row["state"] == "complete":
        raise err("file_already_completed")
    data = decode_media(media) if media else (content or "").encode()
    text, binary = store_content(data)
    s.store.update(FILES.name, {"id": file_id}, {"content": text, "binary": binary, "size": len(data), "state": "uploaded"})
    return {"file_id": file_id, "size": len(data)}


@method(ToolKind.SEND, "files.completeUploadExternal")
def files_complete_upload_external(
    ctx: ServiceContext,
    files: JsonArg,
    channel_id: OptStr = None,
    channels: CsvList = None,
    initial_comment: OptStr = None,
    thread_ts: OptStr = None,
    blocks: JsonArg = None,
) -> dict[str, Any]:
    """Finish uploads started with files.getUploadURLExternal and optionally share them in a channel.

    Args:
        files: JSON array of {"id", "title"} for the uploaded files.
        channel_id: the channel id to share them in (members can read them).
        channels: channel ids to share them in.
        initial_comment: a message posted with the files.
        thread_ts: share them as a reply in this thread.
        blocks: Block Kit blocks for the message (used when there is no initial_comment).
    """
    s = Slack(ctx)
    if not isinstance(files, list) or not files or not all(isinstance(f, dict) and f.get("id") for f in files):
        raise err("invalid_arguments")
    rows = []
    for f in files:
        row = s.file_row(str(f["id"]))
        if row is not None and row["user"] != s.me:  # someone else's upload: answered like an unknown id
            raise err("file_not_found", denied=True)
        if row is None or row["state"] == "complete":
            raise err("file_not_found")
        if row["state"] != "uploaded":
            raise err("file_upload_not_found")
        if row["expected_length"] is not None and row["expected_length"] != row["size"]:
            raise err("file_size_mismatch")
        row = {**row, "title": str(f.get("title") or row["name"]), "state": "complete"}
        s.store.update(FILES.name, {"id": row["id"]}, {"title": row["title"], "state": "complete"})
        rows.append(row)
    targets = share_targets(s, ([channel_id] if channel_id else []) + list(channels or []))
    if targets:
        comment = initial_comment
        if comment is None and isinstance(blocks, list):
            from clawarena.services.slack.core import blocks_text

            comment = blocks_text(blocks)
        share(s, rows, targets, comment, thread_ts)
    return {"files": [s.file_object(s.file_row(r["id"])) for r in rows]}  # type: ignore[arg-type]


# ---- list, info, delete ----------------------------------------------------------------------
_TYPE_FILTERS = {
    "spaces": lambda r: r["filetype"] in ("post", "space", "quip"),
    "snippets": lambda r: r["snippet_type"] is not None,
    "images": lambda r: r["mimetype"].startswith("image/"),
    "gdocs": lambda r: r["filetype"].startswith("g"),
    "zips": lambda r: r["filetype"] == "zip",
    "pdfs": lambda r: r["filetype"] == "pdf",
}


@method(ToolKind.READ, "files.list")
def files_list(
    ctx: ServiceContext,
    user: OptStr = None,
    channel: OptStr = None,
    types: CsvList = None,
    ts_from: OptInt = None,
    ts_to: OptInt = None,
    count: OptInt = None,
    page: OptInt = None,
    limit: OptInt = None,
    cursor: OptStr = None,
) -> dict[str, Any]:
    """List the files you can see (yours, and those shared where you can read), newest first.

    Args:
        user: only files uploaded by this user id.
        channel: only files shared in this channel id.
        types: any of all, spaces, snippets, images, gdocs, zips, pdfs.
        ts_from: only files created after this Unix time.
        ts_to: only files created before this Unix time.
        count: page size for page-based paging (default 100).
        page: page number (from 1).
        limit: page size for cursor paging.
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    rows = [r for r in s.store.select(FILES.name, order_by='"created" DESC, "id"') if r["state"] == "complete" and s.can_see_file(r)]
    if user:
        rows = [r for r in rows if r["user"] == user]
    if channel:
        cid = s.access(channel)["id"]
        rows = [r for r in rows if cid in r["channels"]]
    wanted = [t for t in (types or []) if t != "all"]
    for t in wanted:
        if t not in _TYPE_FILTERS:
            raise err("unknown_type")
    if wanted:
        rows = [r for r in rows if any(_TYPE_FILTERS[t](r) for t in wanted)]
    if ts_from is not None:
        rows = [r for r in rows if r["created"] >= ts_from]
    if ts_to is not None:
        rows = [r for r in rows if r["created"] <= ts_to]
    if cursor or limit:
        chunk, nxt = cursor_page(rows, cursor, limit or 100)
        return {"files": [s.file_object(r) for r in chunk], **meta(nxt)}
    per = count if count and count > 0 else 100
    pages = max(1, -(-len(rows) // per))
    number = min(max(page or 1, 1), pages)
    chunk = rows[(number - 1) * per : number * per]
    return {"files": [s.file_object(r) for r in chunk], "paging": {"count": per, "total": len(rows), "page": number, "pages": pages}}


@method(ToolKind.READ, "files.info")
def files_info(ctx: ServiceContext, file: Str) -> dict[str, Any]:
    """Get a file's details and, for text files, its content.

    Args:
        file: the file id (F...).
    """
    s = Slack(ctx)
    row = visible_file(s, file)
    out: dict[str, Any] = {"file": s.file_object(row), "comments": [], **meta("")}
    if not row["binary"]:
        out["content"] = row["content"]
    return out


@method(ToolKind.WRITE, "files.delete")
def files_delete(ctx: ServiceContext, file: Str) -> dict[str, Any]:
    """Delete a file you uploaded (admins: anyone's); messages that carried it show a tombstone.

    Args:
        file: the file id.
    """
    s = Slack(ctx)
    row = visible_file(s, file)
    if row["user"] != s.me:
        permissions.require(s, "files.delete")
    s.store.delete(FILES.name, {"id": row["id"]})
    return {}


TOOLS = (
    files_upload, files_get_upload_url_external, files_upload_content, files_complete_upload_external, files_list,
    files_info, files_delete,
)  # fmt: skip
