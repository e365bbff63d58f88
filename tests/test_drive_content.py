"""Drive reaches a Google Doc's content only through the content handler Docs registers: Drive never imports Docs."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import clawarena.services  # noqa: F401  (registers every service, and the Docs content handler)
from clawarena.services.docs.store import DocContent
from clawarena.services.drive import content
from clawarena.services.drive.tables import GDOC

DRIVE = Path(content.__file__).parent


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):  # in-function imports included
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_no_drive_module_imports_docs():
    offenders = {p.name: sorted(m for m in _imports(p) if m.startswith("clawarena.services.docs")) for p in DRIVE.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_services_import_cleanly_in_a_fresh_interpreter():
    out = subprocess.run([sys.executable, "-c", "import clawarena.services"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_docs_registers_the_google_doc_handler_once():
    assert isinstance(content.handler_for(GDOC), DocContent)
    with pytest.raises(ValueError, match="registered twice"):
        content.register_content_handler(GDOC, DocContent())


def test_an_unregistered_google_type_names_the_missing_handler():
    with pytest.raises(KeyError, match="no content handler for 'application/vnd.google-apps.spreadsheet'"):
        content.handler_for("application/vnd.google-apps.spreadsheet")
    assert content.handled({"mime_type": "text/plain"}) is None
