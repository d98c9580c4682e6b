;; task: Close bd-5 with the reason "duplicate". If the close is refused, return the failure class as a string; if it is accepted, return "closed".
;; expect: "issue.already_closed"
;; after: {"bd-5": {"status": "closed", "close_reason": "guide published"}}
(define e (issue.close (hash "id" "bd-5" "reason" "duplicate")))
(if (accepted? e)
    "closed"
    (result-class e))
