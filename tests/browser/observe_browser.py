"""Drives `tusk observe` in headless Chromium (Debian's, through Playwright).

usage: observe_browser.py BASE_URL TUSK_BIN STORE_DIR SHOTS_DIR

On a store and log the caller seeded: each page loads without console
errors and is no wider than the 1280 px viewport, a hostile title renders
as text (and runs nothing), the queue lists the work in progress with its
holders and links issues to their pages, an issue page shows its edges and
lease, the graph is drawn (edge types, a cycle marked) over the tree kept
as text, the runs page shows a run made after it was opened with each
run's principal and session linked, a session page lists its forms in
order, and a run page shows its replay verdict with the failing form
marked and the command that opens it in the REPL. Writes
SHOTS_DIR/observe-*.png.
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

    def fits(where):
        """No page scrolls sideways at 1280 px (issue 47)."""
        wide, inner = page.evaluate(
            "[document.documentElement.scrollWidth, window.innerWidth]")
        check(wide <= inner, f"{where}: {wide} px wide in a {inner} px viewport")

    def visit(path, shot=None):
        problems.clear()
        response = page.goto(base + path)
        check(response is not None and response.status == 200,
              f"{path}: HTTP {response.status if response else 'none'}")
        page.wait_for_load_state("networkidle")
        check(not problems, f"{path}: {problems}")
        fits(path)
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

    # Work in progress and who holds it; issue links go to the issue page.
    progress = page.locator("#in-progress").inner_text()
    check("bd-4" in progress and "agent.c" in progress and "stale" in progress,
          f"bd-4 and its holder are not in progress: {progress!r}")
    page.locator("#blocked a", has_text="bd-3").first.click()
    page.wait_for_load_state("networkidle")
    check(page.url.endswith("/issues/bd-3"), f"an issue link went to {page.url}")

    # An issue page: fields, edges both ways, lease, the runs that touched it.
    visit("/issues/bd-3")
    check("Type-check the AST" in page.locator("#issue-title").inner_text(), "no title")
    check("bd-2" in page.locator("#depends-on").inner_text(), "bd-3's dependency is missing")
    check("bd-4" in page.locator("#depended-on-by").inner_text(), "bd-3's dependent is missing")
    visit("/issues/bd-4")
    check("agent.c" in page.locator("#issue-lease").inner_text(), "bd-4's lease is missing")
    visit("/issues/bd-1")
    check("<script>" in page.locator("#issue-title").inner_text(), "the hostile title is not text")
    check(page.evaluate("window.__owned") is None, "the hostile title ran on the issue page")
    visit("/issues/bd-2", "issue")
    check('"id" "bd-2"' in page.locator("#issue-runs").inner_text(),
          "bd-2's claim is not among the runs that touched it")
    check("agent.a" in page.locator("#issue-lease").inner_text(), "bd-2's lease is missing")
    check("docs/grammar.md" in page.locator("#comments").inner_text(), "bd-2's comment is missing")
    check(page.locator("#issue-trajectory tbody tr").count() > 1, "no trajectory rows for bd-2")

    # A command-line close is in the history (issue 57).
    visit("/issues/bd-9")
    history = page.locator("#issue-history").inner_text()
    check("issue.close" in history and "tusk issue close" in history and "ops" in history
          and "superseded" in history, f"bd-9's history: {history!r}")

    visit("/leases", "leases")
    workers = page.locator("#workers").inner_text()
    check("agent.a" in workers and "agent.c" in workers, f"workers missing: {workers!r}")
    check("bd-8" in page.locator("#expiring").inner_text(), "bd-8's lease is not expiring soon")
    visit("/trajectory", "trajectory")
    check(page.locator("svg#throughput rect").count() > 0, "no throughput bars")
    check(page.locator("svg#failures rect").count() > 0, "no failure bars")
    # The graph, drawn: nodes, typed edges, the cycle bd-2 → bd-4 → bd-3 → bd-2
    # marked; the tree kept as text below.
    visit("/issues/bd-3/graph", "graph")
    graph = page.locator("svg#dep-graph")
    check(graph.locator("a.gnode").count() >= 4, "the graph draws too few nodes")
    check(graph.locator("path.edge.cycle").count() >= 3, "the cycle is not marked")
    labels = graph.locator("text.elabel").all_text_contents()
    check("blocks" in labels and any("related" in l for l in labels),
          f"edge types missing: {labels!r}")
    box = graph.bounding_box()
    check(box is not None and box["width"] > 100 and box["height"] > 100,
          f"the graph is not drawn at a visible size: {box}")
    check("bd-2" in page.locator("#graph-down").inner_text(), "bd-3's dependency is missing")

    # The runs page picks up a run made after it was opened.
    visit("/runs")
    check(page.locator("#live").is_checked(), "live updates are off by default")
    new_run = eval_program('(display "made after the page opened") (issue.ready)')
    expect(page.locator("#runs tbody tr a.run").first).to_have_attribute("title", new_run, timeout=15000)
    check(not problems, f"/runs while live: {problems}")
    fits("/runs while live")
    check(page.locator("#runs th", has_text="principal").count() == 1, "no principal column")
    check(page.locator("#runs tbody tr", has_text="tester").count() >= 2,
          "the MCP session's runs do not name their principal")
    # The session's two forms without a host call are one row (issue 60).
    quiet = page.locator("#runs tbody tr", has=page.locator("a.quiet-forms"))
    check(quiet.count() == 1 and "2 forms" in quiet.first.inner_text()
          and "no host calls" in quiet.first.inner_text(),
          f"the session's quiet forms are not folded: {[quiet.nth(i).inner_text() for i in range(quiet.count())]}")
    # A short program's row is at most two lines tall (issue 60: the run id
    # and session took the width, and this row was 112 px, six lines).
    row = page.locator("#runs tbody tr", has=page.locator(f"a.run[title='{new_run}']")).first
    cell = row.locator("td").first
    line = page.evaluate("""(td) => { const s = getComputedStyle(td);
        const l = parseFloat(s.lineHeight); return isNaN(l) ? 1.25 * parseFloat(s.fontSize) : l; }""",
                         cell.element_handle())
    height = row.bounding_box()["height"]
    cells = [round(c.bounding_box()["width"]) for c in row.locator("td").all()]
    inner = page.evaluate("""(tr) => [...tr.children].map(td => { const r = document.createRange();
        r.selectNodeContents(td); return Math.round(r.getBoundingClientRect().height); })""",
                          row.element_handle())
    check(height <= 2 * line + 20,
          f"a short program's runs row is {height:.0f} px tall (a line is {line:.0f} px; "
          f"cell widths {cells}, content heights {inner})")
    page.screenshot(path=os.path.join(shots, "observe-runs.png"), full_page=True)

    # A session: its link from the runs list, its forms in order, each linked.
    page.locator("#runs a.session").first.click()
    page.wait_for_load_state("networkidle")
    check("/sessions/" in page.url, f"a session link went to {page.url}")
    check(not problems, f"session page: {problems}")
    fits("the session page")
    forms = page.locator("#forms tbody tr")
    check(forms.count() == 3, f"the session has {forms.count()} forms, not 3")
    check([forms.nth(i).locator("td").first.inner_text() for i in range(3)] == ["1", "2", "3"],
          "the forms are not numbered in order")
    check("(define (ready-count)" in forms.nth(0).inner_text(), "the first form is not first")
    check(forms.locator("a[href^='/runs/']").count() == 3, "a form is not linked to its run")
    check("tester" in page.locator("#session-principal").inner_text(), "no principal")
    page.screenshot(path=os.path.join(shots, "observe-session.png"), full_page=True)
    page.go_back()
    page.wait_for_load_state("networkidle")

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
    check(page.locator("#repl-command").inner_text().startswith("tusk repl --run run-"),
          "the run page does not show the REPL command")
    fits("the run page after its replay")
    page.screenshot(path=os.path.join(shots, "observe-run.png"), full_page=True)

    # The replay button replays again.
    page.locator("#replay").click()
    expect(page.locator("#replay-verdict")).to_contain_text("parity", timeout=30000)

    # The plans a dry run kept, and one drawn as its change (issue 59).
    visit("/plans")
    rows = page.locator("#plans tbody tr")
    check(rows.count() >= 1 and "bd-2" in rows.first.inner_text() and "not applied" in rows.first.inner_text(),
          f"the kept plan is not listed: {page.locator('#plans').inner_text()!r}")
    rows.first.locator("a.plan").click()
    page.wait_for_load_state("networkidle")
    check("/plans/plan-" in page.url, f"a plan link went to {page.url}")
    fields = page.locator("#fields-bd-2").inner_text()
    check("priority" in fields and "\t0" in fields,
          f"the plan's field change is not drawn: {fields!r}")
    lines = page.locator(".plan-lines").inner_text()
    check("planned <b>x</b>" in lines, f"the comment is not shown as text: {lines!r}")
    check(page.locator(".plan-lines b").count() == 0, "a planned comment's markup reached the page")
    check(not problems, f"plan page: {problems}")
    fits("the plan page")
    page.screenshot(path=os.path.join(shots, "observe-plan.png"), full_page=True)

    # A run whose call was refused (no authority evidence) raised nothing:
    # the refused call's line is marked (issue 60).
    refused_run = eval_program('(issue.ready)\n(issue.close (hash "id" "bd-1"))\n')
    visit("/runs/" + refused_run)
    expect(page.locator("#replay-verdict")).to_contain_text("parity", timeout=30000)
    expect(page.locator("#L2.failing")).to_have_count(1, timeout=5000)
    check(page.locator(".line.failing").count() == 1, "more than the refused call's line is marked")
    check("issue.close (line 2" in page.locator(".refused-call").inner_text(),
          f"the refused call is not named: {page.locator('#replay-detail').inner_text()!r}")
    check(not problems, f"refused run page: {problems}")
    browser.close()

print("observe_browser: every page loaded without console errors; "
      f"live run {new_run} shown; replay verdict shown")
