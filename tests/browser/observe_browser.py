"""Drives `tusk observe` in headless Chromium (Debian's, through Playwright).

usage: observe_browser.py BASE_URL TUSK_BIN STORE_DIR SHOTS_DIR

On a store and log the caller seeded: each page loads without console
errors, a hostile title renders as text (and runs nothing), the runs page
shows a run made after it was opened, and a run page shows its replay
verdict with the failing form marked. Writes SHOTS_DIR/observe-*.png.
Exits non-zero with a message on the first failure.
"""
import os
import subprocess
import sys

from playwright.sync_api import expect, sync_playwright

base, tusk, store_dir, shots = sys.argv[1:5]
os.makedirs(shots, exist_ok=True)
problems = []


def check(ok, message):
    if not ok:
        raise SystemExit(f"observe_browser: {message}")


def eval_program(program):
    """Records one run with `tusk eval`; returns its run id."""
    path = os.path.join(store_dir, "browser-program.scm")
    with open(path, "w") as f:
        f.write(program)
    out = subprocess.run([tusk, "eval", "--json", path], cwd=store_dir,
                         capture_output=True, text=True)
    import json
    return json.loads(out.stdout)["runId"]


with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                args=["--no-sandbox", "--disable-gpu"])
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

    def visit(path, shot=None):
        problems.clear()
        response = page.goto(base + path)
        check(response is not None and response.status == 200,
              f"{path}: HTTP {response.status if response else 'none'}")
        page.wait_for_load_state("networkidle")
        check(not problems, f"{path}: {problems}")
        if shot:
            page.screenshot(path=os.path.join(shots, f"observe-{shot}.png"), full_page=True)

    # The queue: the hostile title is text, and nothing it carried ran.
    visit("/queue", "queue")
    ready = page.locator("#ready").inner_text()
    check("<script>window.__owned=1</script>" in ready,
          f"the hostile title is not shown as text: {ready!r}")
    check(page.evaluate("window.__owned") is None, "the hostile title ran as script")
    check(page.locator("script").count() == 1,
          "a script element was injected into the queue page")
    check(page.locator("#counts").inner_text().strip() != "", "no counts")

    visit("/leases", "leases")
    workers = page.locator("#workers").inner_text()
    check("agent.a" in workers and "agent.c" in workers, f"workers missing: {workers!r}")
    check("bd-8" in page.locator("#expiring").inner_text(), "bd-8's lease is not expiring soon")
    visit("/trajectory", "trajectory")
    check(page.locator("svg#throughput rect").count() > 0, "no throughput bars")
    check(page.locator("svg#failures rect").count() > 0, "no failure bars")
    visit("/issues/bd-3/graph", "graph")
    check("bd-2" in page.locator("#graph-down").inner_text(), "bd-3's dependency is missing")

    # The runs page picks up a run made after it was opened.
    visit("/runs")
    check(page.locator("#live").is_checked(), "live updates are off by default")
    new_run = eval_program('(display "made after the page opened") (issue.ready)')
    expect(page.locator("#runs tbody tr").first).to_contain_text(new_run, timeout=15000)
    check(not problems, f"/runs while live: {problems}")
    page.screenshot(path=os.path.join(shots, "observe-runs.png"), full_page=True)

    # A failing run: its replay verdict, and the failing form's line marked.
    failing = page.locator("#runs tbody tr", has_text="runtime_error").first
    failing.locator("a").first.click()
    page.wait_for_load_state("networkidle")
    expect(page.locator("#replay-verdict")).to_contain_text("parity", timeout=30000)
    expect(page.locator(".line.failing")).to_have_count(1, timeout=5000)
    check(not problems, f"run page: {problems}")
    check("<script>" in page.locator("#program").inner_text(),
          "the run's hostile program is not shown as text")
    check(page.evaluate("window.__owned") is None, "the run's program ran as script")
    page.screenshot(path=os.path.join(shots, "observe-run.png"), full_page=True)

    # The replay button replays again.
    page.locator("#replay").click()
    expect(page.locator("#replay-verdict")).to_contain_text("parity", timeout=30000)
    browser.close()

print("observe_browser: every page loaded without console errors; "
      f"live run {new_run} shown; replay verdict shown")
