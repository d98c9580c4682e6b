// tusk observe: the little script the pages need, served by the binary.
// Every string from the server is set with textContent, never as markup.
"use strict";

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function cell(tr, child) {
  const td = document.createElement("td");
  if (child !== undefined && child !== null) {
    td.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  tr.appendChild(td);
}

function link(className, href, text) {
  const a = el("a", className, text);
  a.href = href;
  return a;
}

// As the server's session_link: the id's start shown, the whole id the tooltip.
function sessionLink(sid) {
  const chars = Array.from(sid);
  const a = link("session", "/sessions/" + encodeURIComponent(sid),
    chars.length > 16 ? chars.slice(0, 16).join("") + "…" : sid);
  a.title = sid;
  return a;
}

function tag(className, text) {
  return el("span", "tag " + className, text);
}

// The runs list: refresh the newest page from its JSON while "live" is on.
function runRow(item) {
  const tr = document.createElement("tr");
  if (item.kind === "error") {
    cell(tr, tag("state-stale", "bad row"));
    cell(tr, "at " + item.pos);
    cell(tr, "");
    cell(tr, item.message);
    for (let i = 0; i < 6; i++) cell(tr, "");
    return tr;
  }
  // As the server's run_cells: a session's forms without host calls, folded.
  if (item.kind === "quietForms") {
    cell(tr, link("quiet-forms", item.href, item.count + " forms"));
    cell(tr, item.newestStartedAt || "");
    cell(tr, tag("result-accepted", "accepted"));
    cell(tr, "");
    cell(tr, "0");
    cell(tr, "");
    cell(tr, item.principal || "");
    cell(tr, sessionLink(item.sessionId));
    cell(tr, "");
    const td = document.createElement("td");
    td.appendChild(el("span", "muted", "no host calls: "));
    td.appendChild(el("code", "", (item.programHeads || []).join(" · ")));
    if (item.count > (item.programHeads || []).length) td.appendChild(document.createTextNode(" …"));
    tr.appendChild(td);
    return tr;
  }
  // As the server's short_run: the id's last part shown, the whole id the tooltip.
  const tail = item.runId.slice(item.runId.lastIndexOf("-") + 1);
  const run = link("run", item.href, tail.length >= 8 ? tail : item.runId);
  run.title = item.runId;
  cell(tr, run);
  cell(tr, item.startedAt || "");
  cell(tr, tag("result-" + encodeURIComponent(item.result), item.result));
  cell(tr, (item.failureClasses || []).join(", "));
  cell(tr, String(item.callCount));
  cell(tr, item.durationMs === null || item.durationMs === undefined ? "" : item.durationMs + " ms");
  cell(tr, item.principal || "");
  cell(tr, item.sessionId ? sessionLink(item.sessionId) : "");
  cell(tr, item.issueId ? link("", "/issues/" + encodeURIComponent(item.issueId), item.issueId) : "");
  cell(tr, el("code", "", item.programHead));
  return tr;
}

function liveRuns() {
  const table = document.getElementById("runs");
  const live = document.getElementById("live");
  const status = document.getElementById("live-status");
  const pager = document.getElementById("runs-pager");
  if (!table || !live) return;
  const limit = (pager && pager.dataset.limit) || "25";
  // The page's own filters stay on while it refreshes.
  const asked = new URLSearchParams(location.search);
  let filter = "";
  for (const name of ["result", "principal", "issue", "session", "since", "forms"]) {
    const value = asked.get(name);
    if (value) filter += "&" + name + "=" + encodeURIComponent(value);
  }
  let shown = "";
  async function refresh() {
    if (!live.checked) return;
    try {
      const r = await fetch("/runs?format=json&limit=" + encodeURIComponent(limit) + filter, {
        headers: { Accept: "application/json" },
      });
      if (!r.ok) throw new Error("HTTP " + r.status);
      const page = await r.json();
      const key = JSON.stringify(page.items.map((i) => [i.runId || i.pos || i.runIds, i.result]));
      if (key !== shown) {
        shown = key;
        const body = table.tBodies[0];
        body.replaceChildren(...page.items.map(runRow));
        if (page.items.length === 0) {
          const tr = document.createElement("tr");
          const td = el("td", "none", "none");
          td.colSpan = table.tHead.rows[0].cells.length;
          tr.appendChild(td);
          body.appendChild(tr);
        }
      }
      status.textContent = "updated " + new Date().toLocaleTimeString();
    } catch (e) {
      status.textContent = "cannot refresh: " + e.message;
    }
  }
  setInterval(refresh, 1500);
  live.addEventListener("change", refresh);
}

// One run: replay it against its record, show the verdict and what the
// program produced, and mark the failing form's line.
function replayRun() {
  const button = document.getElementById("replay");
  const verdict = document.getElementById("replay-verdict");
  const detail = document.getElementById("replay-detail");
  if (!button) return;
  async function go() {
    button.disabled = true;
    verdict.className = "muted";
    verdict.textContent = "replaying…";
    detail.replaceChildren();
    try {
      const r = await fetch(button.dataset.href, { method: "POST", headers: { Accept: "application/json" } });
      const report = await r.json();
      if (!r.ok) throw new Error(report.message || "HTTP " + r.status);
      if (report.parity) {
        verdict.className = "tag result-accepted";
        verdict.textContent = "parity · " + report.checkedCalls + " call(s) checked";
      } else {
        const d = report.divergence || {};
        verdict.className = "tag result-rejected";
        verdict.textContent =
          "diverged" + (d.seq ? " at call " + d.seq : "") + " · " + (d.field || "") +
          ": expected " + JSON.stringify(d.expected) + ", got " + JSON.stringify(d.got);
      }
      if (report.note) {
        detail.appendChild(el("p", "muted", report.note));
      }
      if (report.output) {
        detail.appendChild(el("h3", "", "Output"));
        detail.appendChild(el("pre", "", report.output));
      }
      if (report.value !== undefined) {
        detail.appendChild(el("h3", "", "Value"));
        detail.appendChild(el("pre", "", JSON.stringify(report.value, null, 2)));
      }
      document.querySelectorAll(".line.failing").forEach((l) => l.classList.remove("failing"));
      if (report.error) {
        detail.appendChild(el("h3", "", "Error"));
        const where = report.error.line ? " (line " + report.error.line + (report.error.column ? ", column " + report.error.column : "") + ")" : "";
        detail.appendChild(el("pre", "error", report.error.class + where + ": " + report.error.message));
        const line = report.error.line && document.getElementById("L" + report.error.line);
        if (line) line.classList.add("failing");
      }
      // A run that raised nothing but whose call was refused: the call's line.
      if (report.refused) {
        const c = report.refused;
        detail.appendChild(el("h3", "", "Refused call"));
        const where = c.line ? " (line " + c.line + (c.column ? ", column " + c.column : "") + ")" : "";
        detail.appendChild(el("pre", "error refused-call", "call " + c.seq + " · " + c.action + where + ": " + c.class));
        const line = !report.error && c.line && document.getElementById("L" + c.line);
        if (line) line.classList.add("failing");
      }
    } catch (e) {
      verdict.className = "tag result-rejected";
      verdict.textContent = "cannot replay: " + e.message;
    } finally {
      button.disabled = false;
    }
  }
  button.addEventListener("click", go);
  go();
}

document.addEventListener("DOMContentLoaded", () => {
  liveRuns();
  replayRun();
});
