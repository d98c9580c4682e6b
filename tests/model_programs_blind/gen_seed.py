import json
rows = []
def issue(n, t, title, status, prio, labels, deps=(), **kw):
    day = f"2026-10-{n:02d}T10:00:00Z" if n <= 31 else "2026-10-31T10:00:00Z"
    r = {"id": f"bd-{n}", "title": title}
    if "description" in kw: r["description"] = kw.pop("description")
    r.update({"status": status, "priority": prio, "issue_type": t,
              "created_at": day, "updated_at": day})
    for k in ("assignee", "owner", "acceptance_criteria", "notes", "design"):
        if k in kw: r[k] = kw.pop(k)
    r["labels"] = list(labels)
    if status == "closed":
        r["closed_at"] = day
        r["close_reason"] = kw.pop("reason")
    if deps:
        r["dependencies"] = [{"issue_id": f"bd-{n}", "depends_on_id": f"bd-{d}", "type": ty, "created_at": day} for d, ty in deps]
    if "comments" in kw:
        r["comments"] = [{"id": i + 1 + 10 * n, "issue_id": f"bd-{n}", "author": a, "text": x, "created_at": day}
                         for i, (a, x) in enumerate(kw.pop("comments"))]
    assert not kw, kw
    rows.append(r)

issue(1, "epic", "Offline mode for the technician app", "open", 1, ["mobile", "offline"],
      description="Technicians lose signal in basements; the app must keep working.")
issue(2, "task", "Local SQLite cache for job lists", "open", 1, ["mobile", "offline", "storage"], [(1, "parent-child")],
      acceptance_criteria="Job list opens in airplane mode")
issue(3, "task", "Sync queue for edits made offline", "open", 2, ["mobile", "offline", "sync"], [(1, "parent-child"), (2, "blocks")])
issue(4, "bug", "Offline banner flickers on reconnect", "in_progress", 1, ["mobile", "ui"], [(1, "parent-child")], assignee="agent.mira",
      comments=[("agent.mira", "Reproduced on Android 14"), ("agent.omar", "Debounce the network listener?")])
issue(5, "task", "Design the offline data model", "closed", 2, ["mobile", "design"], [(1, "parent-child")], reason="model approved")
issue(6, "epic", "Billing rewrite", "open", 2, ["billing"], [(7, "blocks")])
issue(7, "task", "Pick a payment provider", "open", 0, ["billing", "research"],
      comments=[("agent.lena", "Shortlist: three providers"), ("agent.omar", "Need EU data residency")])
issue(8, "task", "Invoice PDF generation", "open", 2, ["billing", "backend"], [(6, "parent-child")])
issue(9, "task", "Tax rounding rules", "open", 3, ["billing", "backend"], [(8, "parent-child")])
issue(10, "bug", "Login fails for SSO users with plus addresses", "open", 0, ["auth", "backend", "security"],
      description="Users whose email contains + cannot sign in through SSO.",
      acceptance_criteria="An SSO user with a + address signs in",
      comments=[("agent.lena", "Started after the IdP upgrade"), ("agent.mira", "Affects 41 accounts"), ("agent.lena", "Workaround: password login")])
issue(11, "bug", "Crash when a job has no address", "open", 1, ["mobile", "crash"],
      description="The job card dereferences a null address.")
issue(12, "feature", "Dark mode", "open", 3, ["mobile", "ui"])
issue(13, "chore", "Upgrade the build toolchain", "open", 4, ["infra"])
issue(14, "task", "Migrate the scheduler to the new queue", "blocked", 2, ["backend", "scheduler"], [(15, "blocks")],
      notes="Waiting for the cluster")
issue(15, "task", "Message queue cluster setup", "in_progress", 1, ["infra", "scheduler"], assignee="agent.omar")
issue(16, "bug", "Route optimizer ignores lunch breaks", "open", 2, ["scheduler", "backend"], [(15, "discovered-from")])
issue(17, "feature", "Customer self-service portal", "deferred", 3, ["web"])
issue(18, "task", "Set up error reporting", "closed", 1, ["infra", "observability"], reason="dashboards live")
issue(19, "bug", "Timezone shown in UTC on job cards", "open", 1, ["mobile", "ui", "i18n"], [(18, "blocks")])
issue(20, "task", "Translate the app into Spanish", "open", 2, ["i18n", "mobile"], [(19, "blocks")])
issue(21, "chore", "Rotate database credentials", "open", 2, ["security", "infra"], assignee="agent.omar")
issue(22, "feature", "Push notifications for new jobs", "open", 1, ["mobile", "notifications"], [(23, "parent-child")])
issue(23, "epic", "Technician engagement", "open", 1, ["mobile"])
issue(24, "task", "Notification preferences screen", "open", 2, ["mobile", "notifications", "ui"], [(22, "parent-child")])
issue(25, "bug", "Data loss on app upgrade", "closed", 0, ["mobile", "storage", "crash"], reason="fixed in 2.3.1")
issue(26, "task", "Write the API changelog", "open", 3, ["docs"])
issue(27, "task", "Accessibility audit of job screens", "in_progress", 2, ["mobile", "a11y"], assignee="agent.mira")
issue(28, "bug", "Duplicate jobs after sync", "open", 2, ["mobile", "sync", "offline"], [(1, "parent-child"), (3, "blocks")],
      comments=[("agent.omar", "Happens when two edits sync at once")])
issue(29, "task", "Load test the scheduler API", "open", 1, ["scheduler", "performance"], [(14, "blocks")])
issue(30, "chore", "Remove the legacy v1 endpoints", "open", 3, ["backend", "cleanup"], owner="team.api")
with open("seed.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r, separators=(",", ":")) + "\n")
print(len(rows))
