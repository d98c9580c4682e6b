;; task: Close bd-16 with the reason "cannot reproduce". Return true if the close was accepted, false otherwise.
;; expect: true
;; after: {"bd-16": {"status": "closed", "close_reason": "cannot reproduce"}}
(accepted? (issue.close (hash "id" "bd-16" "reason" "cannot reproduce")))
