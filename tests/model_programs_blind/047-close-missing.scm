;; task: Close bd-99 with reason "duplicate". If the close is refused, return the refusal's class; otherwise return "closed".
;; expect: "issue.not_found"
(define e (issue.close (hash "id" "bd-99" "reason" "duplicate")))
(if (accepted? e)
    "closed"
    (result-class e))
