;; task: As agent.sec, claim bd-4 with your own lease id "rot-1", then release it by that same lease id. Return the result class of the release call as a string.
;; expect: "accepted"
;; after: {"bd-4": {"status": "open"}}
(define c (issue.claim (hash "id" "bd-4" "assignee" "agent.sec" "leaseId" "rot-1")))
(printf "claim: ~a\n" (result-class c))
(define r (issue.lease_release (hash "id" "bd-4" "assignee" "agent.sec" "leaseId" "rot-1")))
(result-class r)
