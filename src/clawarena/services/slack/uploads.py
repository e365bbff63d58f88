"""The v2 upload URL of Slack files: a path on this server and a signature naming the uploader."""

from __future__ import annotations

import hashlib

UPLOAD_PREFIX = "/api/_upload/"


def upload_signature(token: str, file_id: str) -> str:
    """A hash of the uploader's token and the file id (never the token itself)."""
    return hashlib.sha256(f"slack-upload/{token}/{file_id}".encode()).hexdigest()[:32]
