"""The offline prototype sampler (synth/sampler.py) and `clawarena synth prototypes`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.services.toolhub import hub
from clawarena.spec import catalog
from clawarena.spec.errors import SpecError
from clawarena.spec.prototype import (
    NETWORK_DOMAINS,
    Prototype,
    catalog_problems,
    dump_prototype,
    load_prototype_file,
)
from clawarena.spec.risks import taxonomy
from clawarena.synth import sampler
from clawarena.synth.sampler import (
    SamplerError,
    coverage,
    coverage_count,
    draw_order,
    grid,
    sample_prototypes,
)
from tests.cli_imports import modules_after

runner = CliRunner()
PHRASES = Path(sampler.__file__).resolve().with_name(sampler.PHRASES_FILE)


def dumped(protos: list[Prototype]) -> str:
    return "".join(dump_prototype(p) for p in protos)


# ---- the grid -------------------------------------------------------------------------------


def test_every_grid_cell_is_a_combination_the_prototype_model_accepts():
    owners = {name: e.owner for name, e in catalog.channels().items()}
    scen = sampler.scenarios()
    cells = grid()
    assert len(cells) == len(set(cells))
    for cell in cells:
        leaf = taxonomy().leaf(cell.leaf)
        assert cell.source in leaf.sources
        if cell.source == "user":
            assert cell.channel is None
        else:
            assert owners[cell.channel] in scen[cell.scenario].spec.service_names()
    assert {c.leaf for c in cells} == set(taxonomy().ids())
    assert {c.channel for c in cells} - {None} == set(catalog.channels())
    assert set(NETWORK_DOMAINS) <= set(scen) and any(s.spec.domain is None for s in scen.values())


def test_the_draw_order_is_a_permutation_of_the_grid():
    order = draw_order(5)
    assert sorted(order, key=sampler.Cell.sort_key) == grid()


def test_the_matching_is_maximum_on_a_small_case():
    # a greedy pairing of a->x would leave b unmatched; augmenting moves a to y
    assert len(sampler._max_matching(["a", "b"], {"a": ["x", "y"], "b": ["x"]})) == 2


# ---- determinism and coverage ------------------------------------------------------------------


def test_the_same_seed_gives_the_same_bytes_and_another_seed_differs():
    first = dumped(sample_prototypes(7, 40))
    assert first == dumped(sample_prototypes(7, 40))
    assert first != dumped(sample_prototypes(8, 40))


def test_coverage_comes_first_at_the_smallest_count_that_allows_it():
    leaves, channels = taxonomy().leaves(), catalog.channels()
    user_only = [leaf for leaf in leaves if leaf.sources == ("user",)]
    # each draw reaches at most one leaf and one channel, and a user-only leaf reaches none
    smallest = max(len(leaves), len(channels) + len(user_only))
    assert coverage_count() == smallest
    for seed in (0, 1, 2, 99):
        protos = sample_prototypes(seed, smallest)
        cov = coverage(protos)
        assert (cov.leaves_covered, cov.channels_covered) == (len(leaves), len(channels)), (seed, cov)
        assert not cov.missing_leaves and not cov.missing_channels


def test_no_combination_repeats_before_the_grid_is_used_up_and_ids_stay_unique():
    size = len(grid())
    protos = sample_prototypes(3, size + 5)
    combos = [(p.risk_target, p.scenario.domain or "-".join(p.scenario.services), p.risk_source, p.attack_channel) for p in protos]
    assert len(set(combos[:size])) == size
    assert combos[size:] == combos[:5]  # past the grid the order repeats
    ids = [p.id for p in protos]
    assert len(set(ids)) == len(ids)
    assert protos[size].id.rsplit("-", 1)[0] == protos[0].id.rsplit("-", 1)[0] and protos[size].id != protos[0].id


def test_ids_name_leaf_scenario_and_channel():
    for p in sample_prototypes(1, 60):
        scenario = p.scenario.domain or "-".join(p.scenario.services)
        channel = (p.attack_channel or "user").replace("_", "-")
        assert p.id.startswith(f"{p.risk_target.replace('.', '-')}-{scenario}-{channel}-"), p.id
        assert p.id.rsplit("-", 1)[1].isdigit()


def test_texts_come_from_the_phrases_and_tools_from_toolhub():
    ph = sampler.phrases()
    index = hub()
    for p in sample_prototypes(4, len(grid()) // 4):
        assert catalog_problems(p) == []
        assert p.unsafe_behaviour and "{" not in p.unsafe_behaviour + p.user_task + p.exposure
        assert p.safety_constraints[0] == ph.leaves[p.risk_target].constraints[0]
        services = [s for s in p.scenario.service_names() if s in index.services]
        expected = sorted(h.name for h in index.retrieve(p.user_task, services=services, k=sampler.TOOLS_PER_PROTOTYPE).hits)
        assert p.required_tools == expected
        if p.attack_channel is None:
            assert p.user_task.lower().startswith(ph.leaves[p.risk_target].user_task.split("{")[0].lower())
        else:
            owner = catalog.channels()[p.attack_channel].owner
            assert p.user_task == ph.channels[p.attack_channel].task.format(service=ph.services[owner])


def test_bad_arguments_name_the_argument():
    with pytest.raises(SamplerError, match="^count: must be a whole number of at least 1"):
        sample_prototypes(1, 0)
    with pytest.raises(SamplerError, match="^seed: must be a whole number"):
        sample_prototypes("1", 3)  # type: ignore[arg-type]


# ---- the phrase file is checked -----------------------------------------------------------------


def write_phrases(tmp_path: Path, mutate) -> Path:
    data = yaml.safe_load(PHRASES.read_text())
    mutate(data)
    path = tmp_path / "phrases.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize(
    "mutate, what",
    [
        (lambda d: d["leaves"].pop("resource.data-leakage"), "leaves: no phrases for risk leaf resource.data-leakage"),
        (lambda d: d["leaves"]["task.harmful-request"].pop("user_task"), "leaves.task.harmful-request.user_task: missing"),
        (lambda d: d["channels"].pop("email"), "channels: no phrases for channel email"),
        (lambda d: d["channels"].__setitem__("fax", d["channels"]["email"]), "channels.fax: not a declared channel"),
        (lambda d: d["channels"]["email"].__setitem__("task", "Read {mailbox}."), "channels.email.task: unknown placeholder {mailbox}"),
        (lambda d: d["workspace"].append({"services": ["gmail"], "role": "x"}), "workspace: service set gmail listed twice"),
        (lambda d: d["channels"]["email"].__setitem__("sources", ["mail"]), "channels.email.sources[0]"),
        (lambda d: d.__setitem__("extra", 1), "extra"),
    ],
)
def test_a_broken_phrase_file_is_refused_naming_the_field(tmp_path, mutate, what):
    with pytest.raises(SpecError, match="phrases.yaml") as exc:
        sampler.load_phrases(write_phrases(tmp_path, mutate))
    assert what in str(exc.value)


def test_the_bundled_phrases_load_and_are_read_once():
    assert sampler.load_phrases(PHRASES) == sampler.phrases()
    assert sampler.phrases() is sampler.phrases()


# ---- clawarena synth prototypes -----------------------------------------------------------------


def invoke(*args: str):
    return runner.invoke(app, ["synth", "prototypes", *args], env={"COLUMNS": "200"})


def test_the_command_writes_canonical_files_that_load_back(tmp_path):
    out = invoke("--seed", "11", "--count", str(coverage_count()), "--out", str(tmp_path / "p"))
    assert out.exit_code == 0, out.output
    files = sorted((tmp_path / "p").glob("*.yaml"))
    expected = sample_prototypes(11, coverage_count())
    assert sorted(f.stem for f in files) == sorted(p.id for p in expected)
    for path, proto in zip(files, sorted(expected, key=lambda p: p.id)):
        assert load_prototype_file(path) == proto
        assert path.read_text() == dump_prototype(proto)
    lines = out.stdout.splitlines()
    leaves, channels = len(taxonomy().ids()), len(catalog.channels())
    assert lines[1].split()[:4] == ["leaves", str(leaves), str(leaves), "-"]
    assert lines[2].split()[:4] == ["channels", str(channels), str(channels), "-"]
    assert lines[-1] == f"wrote {coverage_count()} prototype(s) to {tmp_path / 'p'} (seed 11)"


def test_a_small_count_reports_what_is_missing(tmp_path):
    out = invoke("--count", "3", "--out", str(tmp_path / "p"))
    assert out.exit_code == 0, out.output
    cov = coverage(sample_prototypes(0, 3))
    row = next(ln for ln in out.stdout.splitlines() if ln.startswith("leaves"))
    assert row.split(None, 3) == ["leaves", "3", str(len(taxonomy().ids())), ", ".join(cov.missing_leaves)]
    assert len(cov.missing_leaves) == len(taxonomy().ids()) - 3


def test_the_json_is_the_ids_and_the_coverage_and_nothing_else(tmp_path):
    out = invoke("--seed", "2", "--count", "5", "--out", str(tmp_path / "p"), "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["prototypes"] == [p.id for p in sample_prototypes(2, 5)]
    assert data["coverage"] == coverage(sample_prototypes(2, 5)).model_dump() and data["seed"] == 2 and data["count"] == 5


def test_the_same_seed_twice_writes_the_same_bytes(tmp_path):
    for name in ("a", "b"):
        assert invoke("--seed", "4", "--count", "12", "--out", str(tmp_path / name)).exit_code == 0
    read = lambda d: {f.name: f.read_bytes() for f in sorted((tmp_path / d).iterdir())}  # noqa: E731
    assert read("a") == read("b") and len(read("a")) == 12


def test_a_non_empty_folder_is_refused_unless_forced(tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    out = invoke("--count", "2", "--out", str(folder))
    assert out.exit_code == 2 and "--out" in out.output and "--force" in out.output and "Traceback" not in out.output
    assert [f.name for f in folder.iterdir()] == ["keep.txt"]
    assert invoke("--count", "2", "--out", str(folder), "--force").exit_code == 0
    assert len(list(folder.glob("*.yaml"))) == 2 and (folder / "keep.txt").read_text() == "mine"
    file = tmp_path / "f"
    file.write_text("")
    out = invoke("--count", "2", "--out", str(file))
    assert out.exit_code == 2 and "is a file" in out.output


@pytest.mark.parametrize("args, expected", [(["--count", "0"], "--count: must be at least 1"), (["--count", "x"], "--count"), (["--count", "2"], "--out: missing option"), (["--count", "2", "--seed", "x"], "--seed")])
def test_bad_options_are_one_clear_line(tmp_path, args, expected):
    if "--out" not in expected:
        args = [*args, "--out", str(tmp_path / "p")]
    out = invoke(*args)
    assert out.exit_code == 2 and expected in out.output and "Traceback" not in out.output
    assert len(out.output.strip().splitlines()) == 1
    assert not (tmp_path / "p").exists()


def test_synth_prototypes_imports_only_its_own_command_module(tmp_path):
    loaded = modules_after(["synth", "prototypes", "--count", "2", "--out", str(tmp_path / "p")], tmp_path)
    assert loaded == {"clawarena.commands.base", "clawarena.commands.coerce", "clawarena.commands.synth"}
    assert len(list((tmp_path / "p").glob("*.yaml"))) == 2


def test_the_sample_is_the_same_in_another_process_with_another_hash_seed():
    code = "from clawarena.synth.sampler import sample_prototypes\nfrom clawarena.spec.prototype import dump_prototype\nimport hashlib\nprint(hashlib.sha256(''.join(dump_prototype(p) for p in sample_prototypes(9, 30)).encode()).hexdigest())\n"
    import hashlib

    here = hashlib.sha256(dumped(sample_prototypes(9, 30)).encode()).hexdigest()
    for hash_seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": hash_seed}, timeout=300)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == here


def test_no_safety_constraint_is_a_fragment_of_another() -> None:
    """A comma in an unquoted flow list splits one constraint in two ('no payment' and 'order or
    binding commitment ...'): every constraint is a clause of its own."""
    for leaf, entry in sampler.phrases().leaves.items():
        for c in entry.constraints:
            words = c.split()
            assert len(words) >= 4 and words[0] not in {"or", "and", "then", "forwarded", "order", "hateful"}, (leaf, c)
