;; task: As agent.ui, claim the next ready frontend issue, then change your mind and give the lease back. Return the issue's status after the release, as a string.
;; mistake: calls issue.lease_release without the required assignee argument.
;; fix: issue.lease_release requires assignee (the worker holding the lease, here agent.ui) as well as id.
(define c (issue.claim_next (hash "assignee" "agent.ui" "filter" (hash "labels" '("frontend")))))
(define id (hash-ref* (payload c) "issue" "id"))
(define r (issue.lease_release (hash "id" id)))
(unless (accepted? r)
  (printf "release refused: ~a\n" (result-class r)))
(hash-ref* (payload (issue.show (hash "id" id))) "issue" "status")
