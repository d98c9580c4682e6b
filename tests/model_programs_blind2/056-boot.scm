;; task: Boot a step for worker agent.alpha on a fresh store (no session, no feature ledger). Return {"next": the issue id of the boot's next target, "hasCycle": the diagnostics' hasCycle, "leases": how many leases concern agent.alpha}.
;; expect: {"next":"bd-18","hasCycle":false,"leases":0}
;; assumes: with no session and no feature ledger the next target is the first ready issue by priority, then id (what claim_next would take)
(define b (payload (harness.boot (hash "workerId" "agent.alpha"))))
(hash "next" (hash-ref* b "next" "issueId")
      "hasCycle" (hash-ref* b "diagnostics" "integrity" "hasCycle")
      "leases" (length (hash-ref b "leases" '())))
