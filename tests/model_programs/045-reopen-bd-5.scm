;; task: The onboarding guide (bd-5) turned out to be incomplete. Reopen bd-5 and return its status afterwards as a string.
;; expect: "open"
;; after: {"bd-5": {"status": "open"}}
(define r (issue.reopen (hash "id" "bd-5")))
(if (accepted? r)
    (hash-ref* (payload (issue.show (hash "id" "bd-5"))) "issue" "status")
    (result-class r))
