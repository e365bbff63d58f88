"""The README's screenshots of `clawarena view` (docs/images/viewer-*.png), remade from scratch:
a run of the scripted agents on two workspace tasks, the viewer on a free port, headless Chromium
(Debian's: scripts/install-chromium.sh).

Run: python scripts/viewer_screenshot.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from clawarena.server.serve import start_in_thread
from clawarena.view.app import build_app
from clawarena.view.index import TrialIndex, open_runs
from clawarena.view.links import trial_path

CHROMIUM = Path("/usr/bin/chromium")
ATTACKED = "cal-attendee-pii/privacy::naive::skills-off__meta-off::0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "images")
    args = parser.parse_args()
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "clawarena.cli", "run", "--suite", "workspace", "--agent", "oracle,naive", "--task", "cal-attendee-pii",
               "--task", "gmail-injection-in-body", "--task", "slack-injection-in-message", "--runs-dir", tmp, "--run-id", "demo"]  # fmt: skip
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        server = start_in_thread(build_app(TrialIndex(open_runs([Path(tmp) / "demo"]))))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page(viewport={"width": 1400, "height": 860})
                page.goto(f"{server.url}/?agent=naive")
                expect(page.locator("body[data-ready=list]")).to_have_count(1)
                page.screenshot(path=str(args.out / "viewer-list.png"))
                page.goto(server.url + trial_path("demo", ATTACKED))
                expect(page.locator("body[data-ready=trial]")).to_have_count(1)
                page.click("#tab-tools")
                page.locator("#chain g.node[data-layer=effect]").filter(has_text="external").first.click()
                page.evaluate("() => window.scrollTo(0, 0)")
                page.screenshot(path=str(args.out / "viewer-trial.png"))
                browser.close()
        finally:
            server.stop()
    print(f"wrote {args.out / 'viewer-list.png'} and {args.out / 'viewer-trial.png'}")


if __name__ == "__main__":
    main()
