;; task: A stale script wants to close bd-99 and bd-24. Try both, reason "cleanup", and report how each went. Return a hash from id to the result class of its close call.
;; expect: {"bd-99":"issue.not_found","bd-24":"issue.already_closed"}
;; after: {"bd-24": {"status": "closed", "close_reason": "rotated; old secret revoked"}}
(for/hash ([id '("bd-99" "bd-24")])
  (define e (issue.close (hash "id" id "reason" "cleanup")))
  (values id (result-class e)))
