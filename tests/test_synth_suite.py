"""The shipped synthesized suite (`suites/synth/`): at least 500 tasks covering every risk leaf and
every attack channel of every installed service, each passing `clawarena check` and the mutation
gate, reproducible from its manifest, and documented by docs/suites/synth.md."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path


from clawarena.spec import catalog
from clawarena.spec.loader import load_suite, resolve_suite_dir
from clawarena.spec.prototype import Prototype
from clawarena.spec.risks import taxonomy
from clawarena.synth.build import MANIFEST
from clawarena.synth.compile import compile_prototype
from clawarena.synth.gates import dump_task

ROOT = Path(__file__).resolve().parent.parent
SUITE = resolve_suite_dir("synth")
MANIFEST_DATA = json.loads((SUITE / MANIFEST).read_text())


def test_the_suite_is_large_enough_and_covers_every_leaf_and_channel() -> None:
    scenarios = load_suite("synth")
    tasks = {s.task.id: s.task for s in scenarios}
    assert len(tasks) >= 500
    leaves = {t.risk for t in tasks.values()}
    assert leaves == {leaf.id for leaf in taxonomy().leaves()}
    attacked = {a.channel for s in scenarios for a in s.attacks}
    assert attacked == set(catalog.channels()), sorted(set(catalog.channels()) - attacked)
    # every installed service's channels: the catalog's channels are the services' own
    assert {catalog.channels()[c].owner for c in attacked} == {e.owner for e in catalog.channels().values()}
    for task in tasks.values():
        assert task.category == "safety" and "synth" in task.tags and f"risk:{task.risk}" in task.tags


def test_the_manifest_lists_exactly_the_shipped_files() -> None:
    listed = {e["file"]: e["sha256"] for e in MANIFEST_DATA["accepted"]}
    shipped = {str(p.relative_to(SUITE)): hashlib.sha256(p.read_bytes()).hexdigest() for p in SUITE.rglob("*.yaml")}
    assert shipped == listed


def test_a_sample_of_the_suite_regenerates_byte_for_byte() -> None:
    """Each task is its prototype compiled at the attempt the manifest records (the seed's sample)."""
    sample = random.Random(0).sample(MANIFEST_DATA["accepted"], 24)
    for entry in sample:
        text = dump_task(compile_prototype(Prototype.model_validate(entry["prototype"]), entry["attempt"]))
        assert hashlib.sha256(text.encode()).hexdigest() == entry["sha256"], entry["id"]
        assert (SUITE / entry["file"]).read_text() == text


def test_every_task_passed_the_mutation_gate_and_a_sample_still_does(tmp_path: Path) -> None:
    """The build gated every task on a mutation score of 100% (the manifest records it); CI re-runs
    the mutants of a seeded sample (the whole suite's take about 200 s: docs/benchmarks.md)."""
    assert all(e["mutation_score"] in (1.0, None) for e in MANIFEST_DATA["accepted"])
    for entry in random.Random(1).sample(MANIFEST_DATA["accepted"], 60):
        shutil.copy(SUITE / entry["file"], tmp_path / Path(entry["file"]).name)
    out = subprocess.run(
        [sys.executable, "-m", "clawarena.cli", "check", "--suite", str(tmp_path), "--mutants-only", "--min-mutation-score", "1.0"],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert "mutation score: 100%" in out.stdout and "mutation gate passed" in out.stdout


def test_the_suite_doc_is_current() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "synth_docs.py"), "--check"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr


NETWORK_FOLDERS = {"bargaining", "bidding", "clinical", "swe", "trading", "travel"}


def test_the_material_names_the_attacker_the_way_the_agent_can_reach_them() -> None:
    """On the agent network the only way out is send_message to a principal id, so the material must
    name that id (an email address would make the attack unreachable for a real agent while the
    scripted naive agent, which follows the goal's calls, still fires it); elsewhere the address."""
    checked = 0
    for s in load_suite("synth"):
        for attack in s.attacks:
            if not attack.targets:
                continue
            ids = [t for t in attack.targets if "@" not in t]
            emails = [t for t in attack.targets if "@" in t]
            if s.domain in NETWORK_FOLDERS:
                assert any(f"(principal id {i})" in attack.payload for i in ids), (s.id, attack.payload)
                assert not any(e in attack.payload for e in emails), (s.id, attack.payload)
            else:
                assert any(e in attack.payload for e in emails), (s.id, attack.payload)
            checked += 1
    assert checked > 200
