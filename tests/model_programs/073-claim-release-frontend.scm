;; task: Dry run as agent.ui: claim every ready frontend issue one by one with issue.claim_next, then release all of those leases again. Return a hash {"claimed": <number claimed>, "ready": <number of ready issues at the end>}.
;; expect: {"claimed":5,"ready":12}
;; after: {"bd-1": {"status": "open"}, "bd-10": {"status": "open"}, "bd-2": {"status": "open"}, "bd-20": {"status": "open"}, "bd-15": {"status": "open"}}
(define ids '())
(do ([e (issue.claim_next (hash "assignee" "agent.ui" "filter" (hash "labels" '("frontend"))))
        (issue.claim_next (hash "assignee" "agent.ui" "filter" (hash "labels" '("frontend"))))])
    ((or (rejected? e) (not (hash-ref (payload e) "claimed"))))
  (set! ids (cons (hash-ref* (payload e) "issue" "id") ids)))

(for-each (lambda (id)
            (issue.lease_release (hash "id" id "assignee" "agent.ui")))
          ids)

(hash "claimed" (length ids)
      "ready" (length (hash-ref (payload (issue.ready)) "issues")))
