"""benchmarks/vs_agentdojo.py: AgentDojo is a benchmark-only dependency, so its absence is a clear
message, and the alternation gives each side the same number of samples."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import vs_agentdojo


def test_missing_agentdojo_says_how_to_install_it(monkeypatch):
    for name in [m for m in sys.modules if m == "agentdojo" or m.startswith("agentdojo.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "agentdojo", None)  # import agentdojo now raises ImportError
    with pytest.raises(SystemExit) as exc:
        vs_agentdojo.main(["--pairs", "1"])
    assert str(exc.value) == vs_agentdojo.INSTALL_HINT
    assert "benchmarks/requirements-agentdojo.txt" in vs_agentdojo.INSTALL_HINT
    assert (Path(vs_agentdojo.__file__).parent / "requirements-agentdojo.txt").read_text().count("agentdojo==") == 1


def test_pairs_below_one_is_refused_naming_the_argument(capsys):
    with pytest.raises(SystemExit):
        vs_agentdojo.main(["--pairs", "0"])
    assert "--pairs" in capsys.readouterr().err


def test_alternate_takes_one_sample_per_side_in_turn():
    order = []
    left = [lambda: order.append("a1"), lambda: order.append("a2")]
    right = [lambda: order.append("b1")]
    ta, tb = vs_agentdojo.alternate(left, right, 3)
    assert order == ["a1", "b1", "a2", "b1", "a1", "b1"]
    assert len(ta) == len(tb) == 3 and all(t >= 0 for t in ta + tb)
