"""Every registry refuses a second thing under a name it already has, and names what it knows."""

from __future__ import annotations

import pytest

from clawarena.registry import Registry


def test_registry_refuses_duplicates_and_names_the_known_ones():
    reg: Registry[int] = Registry("widget")
    reg.register("a", 1)
    reg.decorator("b")(2)
    with pytest.raises(ValueError, match="widget 'a' is registered twice"):
        reg.register("a", 3)
    assert reg.get("a") == 1 and reg["b"] == 2 and reg.names() == ["a", "b"] and "a" in reg and len(reg) == 2
    with pytest.raises(KeyError, match="unknown widget 'c' \\(known: a, b\\)"):
        reg.get("c")


def _registries():
    from clawarena.agents import registry as agents
    from clawarena.llm.providers import PROVIDERS
    from clawarena.runner.executor import EXECUTORS
    from clawarena.scoring import checks
    from clawarena.server.wires import WIRES
    from clawarena.gateway.governance import RESOLVERS

    return {
        "executor": (EXECUTORS, "thread"),
        "wire style": (WIRES, "google"),
        "check kind": (checks._EVALUATORS, "record_exists"),
        "Python check": (checks._PYTHON_CHECKS, "deliveries_within_org"),
        "resource resolver": (RESOLVERS, "read_attachment"),
        "agent kind": (agents._KINDS, "oracle"),
        "model provider": (PROVIDERS, "openai"),
    }


@pytest.mark.parametrize("what", sorted(_registries()))
def test_built_in_registries_refuse_a_second_registration(what):
    registry, taken = _registries()[what]
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(taken, registry.get(taken))


def test_services_refuse_a_second_registration():
    from clawarena.services import registry as services

    with pytest.raises(ValueError, match="registered twice"):
        services.register_service(services.service("gmail"))


def test_python_checks_refuse_a_second_registration():
    from clawarena.scoring.checks import register_python_check

    with pytest.raises(ValueError, match="registered twice"):
        register_python_check("deliveries_within_org")(lambda ctx, params: None)
