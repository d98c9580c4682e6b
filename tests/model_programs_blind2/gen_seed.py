#!/usr/bin/env python3
"""Write seed.jsonl: a beads issues.jsonl store for a billing / usage-metering
platform team ("Ledgerline").  Every date is fixed (2026-11); ids run bd-10 ..
bd-43 so that every seed id has two digits and string order equals number order.
"""
import json
import os

UPDATED = "2026-11-20T12:00:00Z"


def dep(issue_id, depends_on_id, typ, created_at="2026-11-12T09:00:00Z"):
    return {"issue_id": issue_id, "depends_on_id": depends_on_id, "type": typ,
            "created_at": created_at}


_comment_id = [0]


def comment(issue_id, author, text, created_at):
    _comment_id[0] += 1
    return {"id": _comment_id[0], "issue_id": issue_id, "author": author,
            "text": text, "created_at": created_at}


def issue(n, title, issue_type, status, priority, created_at, labels,
          description, **extra):
    iid = f"bd-{n}"
    obj = {
        "id": iid,
        "title": title,
        "description": description,
        "status": status,
        "priority": priority,
        "issue_type": issue_type,
        "created_at": created_at,
        "updated_at": extra.pop("updated_at", UPDATED),
        "labels": labels,
    }
    for key in ("assignee", "owner", "acceptance_criteria", "notes",
                "closed_at", "close_reason"):
        if key in extra:
            obj[key] = extra.pop(key)
    deps = extra.pop("deps", [])
    if deps:
        obj["dependencies"] = [dep(iid, d, t) for (d, t) in deps]
    comments = extra.pop("comments", [])
    if comments:
        obj["comments"] = [comment(iid, a, txt, at) for (a, txt, at) in comments]
    assert not extra, extra
    return obj


ISSUES = [
    # --- epics -----------------------------------------------------------
    issue(10, "Usage metering pipeline v2", "epic", "open", 1,
          "2026-11-02T09:00:00Z", ["pipeline", "metering"],
          "Replace the batch CSV metering import with a streaming pipeline from "
          "the product services to the rating engine.",
          owner="maria.chen",
          acceptance_criteria="All usage for new tenants flows through the v2 "
                              "pipeline with under 5 minutes of delay."),
    issue(11, "Invoice generation rewrite", "epic", "open", 1,
          "2026-11-02T09:20:00Z", ["billing", "invoicing"],
          "Move invoice rendering out of the monolith into billing-api.",
          owner="dev.okafor", deps=[("bd-19", "blocks")],
          comments=[("maria.chen",
                     "On hold until the legacy template API is frozen (bd-19).",
                     "2026-11-04T09:15:00Z")]),
    issue(12, "Dunning and payment retry overhaul", "epic", "open", 2,
          "2026-11-02T09:40:00Z", ["billing", "payments"],
          "Rework how failed charges are retried and how customers are "
          "reminded before suspension.",
          owner="priya.nair"),
    # --- metering children (parent bd-10) ---------------------------------
    issue(13, "Define usage event schema v2", "task", "closed", 1,
          "2026-11-03T10:00:00Z", ["pipeline", "schema"],
          "Avro schema for usage events with tenant, meter, quantity and "
          "event time.",
          assignee="agent.kafka", deps=[("bd-10", "parent-child")],
          closed_at="2026-11-08T17:00:00Z", close_reason="schema v2 merged",
          updated_at="2026-11-08T17:00:00Z"),
    issue(14, "Kafka consumer for usage events", "task", "in_progress", 1,
          "2026-11-03T10:30:00Z", ["pipeline", "kafka"],
          "Consume the usage-events topic and write normalized rows to the "
          "metering store.",
          assignee="agent.kafka",
          notes="Consumer group lag under 2s in staging; batching 500 events per poll.",
          deps=[("bd-10", "parent-child"), ("bd-13", "blocks")],
          comments=[("agent.kafka",
                     "Consumer must forward the idempotency key header.",
                     "2026-11-10T11:00:00Z"),
                    ("maria.chen", "Staging lag at 1.4s p99.",
                     "2026-11-11T15:30:00Z")]),
    issue(15, "Deduplicate usage events by idempotency key", "task", "open", 1,
          "2026-11-03T11:00:00Z", ["pipeline", "metering"],
          "Drop duplicate usage events using the producer's idempotency key "
          "within a 24h window.",
          deps=[("bd-10", "parent-child"), ("bd-14", "blocks")]),
    issue(16, "Hourly usage rollup job", "task", "open", 2,
          "2026-11-03T11:30:00Z", ["pipeline", "metering", "batch"],
          "Aggregate deduplicated events into hourly buckets per tenant and "
          "meter.",
          deps=[("bd-10", "parent-child"), ("bd-15", "blocks")]),
    issue(17, "Backfill metering for migrated customers", "feature", "open", 3,
          "2026-11-04T14:00:00Z", ["pipeline", "backfill"],
          "Replay March usage for customers moved from the legacy plan.",
          deps=[("bd-10", "parent-child"), ("bd-16", "waits-for")]),
    issue(18, "Late-arriving events dropped at window close", "bug", "open", 0,
          "2026-11-09T16:45:00Z", ["pipeline", "metering", "bug-bash"],
          "Events that arrive after the hourly window closes are silently "
          "discarded instead of going to the correction stream.",
          deps=[("bd-10", "parent-child")]),
    # --- invoice work ----------------------------------------------------
    issue(19, "Freeze legacy invoice template API", "task", "open", 1,
          "2026-11-04T09:10:00Z", ["billing", "api"],
          "Announce and enforce a freeze of the v1 template endpoints so the "
          "rewrite has a stable target.",
          owner="dev.okafor"),
    issue(20, "Invoice line-item renderer", "task", "open", 1,
          "2026-11-04T09:30:00Z", ["billing", "invoicing"],
          "Render line items, discounts and taxes from the rated usage.",
          deps=[("bd-11", "parent-child")]),
    issue(21, "PDF export for invoices", "feature", "open", 2,
          "2026-11-04T09:50:00Z", ["invoicing", "frontend"],
          "Let customers download any invoice as a PDF from the billing page.",
          deps=[("bd-11", "parent-child")]),
    issue(22, "Rounding error on multi-currency invoices", "bug", "open", 1,
          "2026-11-05T13:00:00Z", ["billing", "invoicing", "currency"],
          "Totals differ from the sum of line items by one minor unit on some "
          "converted invoices.",
          deps=[("bd-11", "parent-child")],
          comments=[("dev.okafor",
                     "Seen on EUR to JPY invoices; off by one minor unit.",
                     "2026-11-06T10:00:00Z")]),
    issue(23, "Per-tenant invoice numbering sequence", "task", "closed", 2,
          "2026-11-04T10:10:00Z", ["billing", "invoicing"],
          "Gapless invoice numbers per tenant, as required in several EU "
          "countries.",
          assignee="dev.okafor", deps=[("bd-11", "parent-child")],
          closed_at="2026-11-15T16:20:00Z",
          close_reason="shipped in billing-api 3.14",
          updated_at="2026-11-15T16:20:00Z"),
    issue(24, "Rotate payment gateway webhook secret", "chore", "closed", 1,
          "2026-11-01T11:00:00Z", ["payments", "security"],
          "Quarterly rotation of the webhook signing secret.",
          assignee="agent.pay", closed_at="2026-11-03T09:00:00Z",
          close_reason="rotated; old secret revoked",
          updated_at="2026-11-03T09:00:00Z"),
    # --- dunning children (parent bd-12) ----------------------------------
    issue(25, "Configurable retry schedule for failed charges", "task", "open", 2,
          "2026-11-05T10:00:00Z", ["payments", "config"],
          "Move the hard-coded 1/3/7 day retry schedule into per-plan config.",
          deps=[("bd-12", "parent-child")],
          acceptance_criteria="Schedule can be changed per plan without a deploy."),
    issue(26, "Dunning email templates", "feature", "open", 3,
          "2026-11-05T10:20:00Z", ["payments", "email", "frontend"],
          "Reminder emails for each step of the retry schedule.",
          deps=[("bd-12", "parent-child"), ("bd-25", "blocks")]),
    issue(27, "Card updater webhook handler", "task", "in_progress", 2,
          "2026-11-05T10:40:00Z", ["payments", "api"],
          "Handle card-updated events from the card network updater service.",
          assignee="agent.pay",
          notes="Handler deployed behind flag card_updater_v2.",
          deps=[("bd-12", "parent-child")]),
    issue(28, "Duplicate charge on retry after gateway timeout", "bug", "open", 0,
          "2026-11-10T08:05:00Z", ["payments", "bug-bash"],
          "The retry path ignores the idempotency key after a gateway timeout "
          "and charges the card twice.",
          deps=[("bd-12", "parent-child")],
          comments=[("priya.nair",
                     "Reproduced in sandbox with a 31s gateway timeout.",
                     "2026-11-10T09:00:00Z"),
                    ("agent.pay",
                     "Fix needs the shared retry ledger from bd-25.",
                     "2026-11-10T14:30:00Z")]),
    # --- the rest --------------------------------------------------------
    issue(29, "Currency conversion uses stale FX rates", "bug", "open", 1,
          "2026-11-06T15:30:00Z", ["billing", "currency"],
          "The FX cache is refreshed daily; intraday conversions drift.",
          deps=[("bd-22", "discovered-from")]),
    issue(30, "Ledger vs processor payout reconciliation report", "task", "open", 2,
          "2026-11-06T09:00:00Z", ["finance", "reconciliation"],
          "Daily report matching ledger entries against processor payouts.",
          assignee="maria.chen"),
    issue(31, "Nightly reconciliation diff alerts", "task", "open", 2,
          "2026-11-06T09:15:00Z", ["finance", "reconciliation", "alerts"],
          "Page finance-oncall when the nightly diff exceeds the threshold.",
          deps=[("bd-30", "blocks")]),
    issue(32, "Upgrade Postgres driver in billing-api", "chore", "open", 3,
          "2026-11-01T08:15:00Z", ["billing", "maintenance"],
          "Move to the maintained driver release; the old one is end of life."),
    issue(33, "Tax calculation service integration", "feature", "blocked", 1,
          "2026-11-07T12:00:00Z", ["billing", "tax"],
          "Call the external tax engine for every invoice line.",
          assignee="dev.okafor", notes="Waiting on the vendor contract."),
    issue(34, "Usage dashboard shows UTC instead of account timezone", "bug",
          "open", 2, "2026-11-07T14:20:00Z", ["frontend", "metering"],
          "Charts on the usage page ignore the account's timezone setting."),
    issue(35, "Archive raw usage events to cold storage", "task", "open", 4,
          "2026-11-08T09:00:00Z", ["pipeline", "storage"],
          "Move raw events older than 90 days to the archive bucket.",
          deps=[("bd-40", "waits-for")]),
    issue(36, "Billing on-call runbook", "chore", "in_progress", 3,
          "2026-11-08T11:00:00Z", ["docs", "billing"],
          "Write the runbook for the billing on-call rotation.",
          assignee="maria.chen"),
    issue(37, "Self-serve plan downgrade", "feature", "open", 2,
          "2026-11-08T13:30:00Z", ["billing", "frontend"],
          "Customers can downgrade their plan from the billing page; prorated "
          "on the next invoice.",
          deps=[("bd-11", "blocks")]),
    issue(38, "Load test metering ingestion at 50k events/s", "task", "open", 1,
          "2026-11-09T10:00:00Z", ["pipeline", "perf"],
          "Sustained load test of the consumer against production-sized "
          "partitions.",
          deps=[("bd-14", "blocks")]),
    issue(39, "Remove deprecated v1 usage endpoints", "chore", "open", 4,
          "2026-11-01T09:45:00Z", ["pipeline", "api", "maintenance"],
          "Delete the v1 usage POST endpoints once no tenant calls them.",
          deps=[("bd-13", "related")]),
    issue(40, "Provision cold storage bucket", "task", "closed", 3,
          "2026-11-01T10:00:00Z", ["pipeline", "storage"],
          "Archive bucket with a 7-year retention lock.",
          assignee="agent.kafka", closed_at="2026-11-07T10:00:00Z",
          close_reason="bucket provisioned via terraform",
          updated_at="2026-11-07T10:00:00Z"),
    issue(41, "Webhook retries are not idempotent", "bug", "closed", 1,
          "2026-11-01T07:30:00Z", ["payments", "api", "bug-bash"],
          "Gateway webhook redeliveries create duplicate payment records.",
          assignee="agent.pay", closed_at="2026-11-05T18:00:00Z",
          close_reason="fixed in 8c1d2e", updated_at="2026-11-05T18:00:00Z"),
    issue(42, "Credit notes for partial refunds", "feature", "open", 2,
          "2026-11-11T09:00:00Z", ["billing", "invoicing"],
          "Issue a credit note that references the original invoice line.",
          deps=[("bd-20", "blocks")]),
    issue(43, "Export usage to customer data warehouse", "feature", "open", 3,
          "2026-11-12T10:00:00Z", ["pipeline", "integrations", "metering"],
          "Nightly export of per-tenant usage to the customer's warehouse.",
          deps=[("bd-14", "discovered-from")]),
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "seed.jsonl"), "w") as f:
        for obj in ISSUES:
            f.write(json.dumps(obj, separators=(",", ":")) + "\n")
    print(f"wrote {len(ISSUES)} issues to seed.jsonl")


if __name__ == "__main__":
    main()
