;; task: For the changelog: return a hash from every closed issue's id to its close reason.
;; expect: {"bd-13":"schema v2 merged","bd-23":"shipped in billing-api 3.14","bd-24":"rotated; old secret revoked","bd-40":"bucket provisioned via terraform","bd-41":"fixed in 8c1d2e"}
(define closed (hash-ref (payload (issue.list (hash "status" "closed"))) "items"))
(define reasons (make-hash))
(for ([i closed])
  (define id (hash-ref i "id"))
  (define shown (payload (issue.show (hash "id" id))))
  (hash-set! reasons id (hash-ref* shown "issue" "close_reason")))
reasons
