"""The viewer in headless Chromium (Debian's, as the report's browser test): open the list of a run
made with the scripted agents, filter to an attacked trial, open its evidence chain and follow it
from the material to the harm; deep links to a trial and an event; benign against attacked. The
screenshots go into the test's output folder."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from clawarena.server.serve import start_in_thread
from clawarena.view.app import build_app
from clawarena.view.index import TrialIndex, open_runs
from clawarena.view.links import trial_path
from tests.test_report import CHROMIUM, CHROMIUM_ARGS
from tests.view_runs import network_run, workspace_run

LAYERS = ["material", "exposure", "decision", "call", "effect", "harm"]


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    root = tmp_path_factory.mktemp("view-browser")
    server = start_in_thread(build_app(TrialIndex(open_runs([workspace_run(root), network_run(root)]))))
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: scripts/install-chromium.sh installs Debian's chromium")
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        except PlaywrightError as exc:
            pytest.skip(f"playwright cannot launch {CHROMIUM}: {str(exc).splitlines()[0]}")
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    page.close()
    assert not errors, errors  # no script error, and no request the page made failed


def test_filter_to_an_attacked_trial_and_follow_its_evidence_chain(viewer, page, tmp_path):
    from playwright.sync_api import expect

    page.goto(f"{viewer}/")
    expect(page.locator("body[data-ready=list]")).to_have_count(1)
    total = page.locator("#trial-rows tr").count()
    assert total > 4
    page.select_option("#filter-attributed", "yes")
    page.select_option("#filter-vector", "calendar_event")
    rows = page.locator("#trial-rows tr")
    expect(rows).to_have_count(1)
    assert "attributed=yes" in page.url and "vector=calendar_event" in page.url  # the filtered list has its own link
    page.screenshot(path=str(tmp_path / "viewer-list.png"))
    rows.first.locator("a").click()
    expect(page.locator("body[data-ready=trial]")).to_have_count(1)
    assert page.locator("#trial-id").inner_text().startswith("cal-attendee-pii/privacy::naive")
    chain = page.locator("#chain svg")
    expect(chain).to_be_visible()
    for layer in LAYERS:
        nodes = page.locator(f"#chain g.node[data-layer={layer}]")
        assert nodes.count() >= 1, layer
        box = nodes.first.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0
    # the drawn edges make a path from the material to a harm node
    edges = page.locator("#chain path.edge")
    pairs = {(edges.nth(i).get_attribute("data-from"), edges.nth(i).get_attribute("data-to")) for i in range(edges.count())}
    frontier = {page.locator("#chain g.node[data-layer=material]").first.get_attribute("data-node")}
    for layer in LAYERS[1:]:
        frontier = {b for a, b in pairs if a in frontier and b.startswith(f"{layer}:")}
        assert frontier, f"no drawn edge reaches {layer}"
    # a node opens its event: the delivery to the attacker's address
    delivery = page.locator("#chain g.node[data-layer=effect]").filter(has_text="external")
    delivery.first.click()
    expect(page.locator("#detail-title")).to_contain_text("delivery")
    expect(page.locator("#detail-payload")).to_contain_text("pa-office@harrow-clinic-admin.example")
    assert "/events/ev-" in page.url  # the event's own link
    page.screenshot(path=str(tmp_path / "viewer-trial.png"), full_page=True)
    assert (tmp_path / "viewer-trial.png").stat().st_size > 10_000
    print(f"screenshots: {tmp_path}")


def test_the_three_views_as_tabs(viewer, page):
    from playwright.sync_api import expect

    page.goto(viewer + trial_path("ws", "cal-attendee-pii/privacy::naive::skills-off__meta-off::0"))
    expect(page.locator("body[data-ready=trial]")).to_have_count(1)
    expect(page.locator("#panel-model .item.k-turn_end")).to_have_count(1)
    page.click("#tab-tools")
    expect(page.locator("#panel-tools .item.k-call")).to_have_count(3)
    expect(page.locator("#panel-model")).to_be_hidden()
    page.click("#tab-artifacts")
    expect(page.locator("#deliveries tbody tr")).to_have_count(2)
    expect(page.locator("#diff")).to_contain_text("attendees")
    expect(page.locator("#checks tbody tr").filter(has_text="attack-caused").first).to_be_visible()


def test_a_deep_link_to_an_event_opens_it(viewer, page):
    from playwright.sync_api import expect

    page.goto(viewer + trial_path("ws", "cal-attendee-pii/privacy::naive::skills-off__meta-off::0", "ev-000005"))
    expect(page.locator("#detail-title")).to_have_text("ev-000005 · exposure")
    expect(page.locator('[data-event="ev-000005"].selected').first).to_be_visible()


def test_benign_against_attacked_side_by_side(viewer, page, tmp_path):
    from playwright.sync_api import expect

    page.goto(viewer + trial_path("ws", "cal-attendee-pii/benign::naive::skills-off__meta-off::0"))
    page.click("#compare-link")
    expect(page.locator("body[data-ready=compare]")).to_have_count(1)
    expect(page.locator("#side-benign #no-chain")).to_be_visible()
    expect(page.locator("#side-attacked g.node[data-layer=harm]").first).to_be_visible()
    assert page.locator("#side-benign").get_attribute("data-unit").startswith("cal-attendee-pii/benign")
    page.screenshot(path=str(tmp_path / "viewer-compare.png"), full_page=True)


def test_a_network_trial_shows_each_agent_in_its_lane(viewer, page):
    from playwright.sync_api import expect

    page.goto(f"{viewer}/?suite=network")
    expect(page.locator("body[data-ready=list]")).to_have_count(1)
    page.locator("#trial-rows tr a").first.click()
    expect(page.locator("body[data-ready=trial]")).to_have_count(1)
    assert page.locator("#panel-model .lane").count() >= 2


def test_an_unknown_trial_says_so(viewer, browser):
    page = browser.new_page()
    page.goto(viewer + "/runs/ws/trials/" + quote("no/such", safe=""))
    from playwright.sync_api import expect

    expect(page.locator("#error")).to_contain_text("no trial")
    page.close()
