;; task: The onboarding guide (bd-5) turned out to be incomplete. Reopen bd-5 and return its status afterwards as a string.
;; mistake: calls issue.open, which does not exist.
;; fix: there is no issue.open; the action that opens a closed issue again is issue.reopen.
(define r (issue.open (hash "id" "bd-5")))
(if (accepted? r)
    (hash-ref* (payload (issue.show (hash "id" "bd-5"))) "issue" "status")
    (result-class r))
