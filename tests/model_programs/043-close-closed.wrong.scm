;; task: Close bd-5 with the reason "duplicate". If the close is refused, return the failure class as a string; if it is accepted, return "closed".
;; mistake: reads the closed issue out of the payload without checking whether the call was accepted; the call is rejected (bd-5 is already closed) and its payload has no "issue".
;; fix: the close was rejected with issue.already_closed, so the payload has no key "issue"; check (accepted? e) / (result-class e) before reading the payload.
(define e (issue.close (hash "id" "bd-5" "reason" "duplicate")))
(define closed-issue (hash-ref (payload e) "issue"))
(if (equal? (hash-ref closed-issue "status") "closed")
    "closed"
    (result-class e))
