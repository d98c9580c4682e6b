;; task: As agent.ui, claim the next ready frontend issue, then change your mind and give the lease back. Return the issue's status after the release, as a string.
;; expect: "open"
;; after: {"bd-1": {"status": "open"}}
(define c (issue.claim_next (hash "assignee" "agent.ui" "filter" (hash "labels" '("frontend")))))
(define id (hash-ref* (payload c) "issue" "id"))
(define r (issue.lease_release (hash "id" id "assignee" "agent.ui")))
(unless (accepted? r)
  (printf "release refused: ~a\n" (result-class r)))
(hash-ref* (payload (issue.show (hash "id" id))) "issue" "status")
