;; task: Close bd-13 with the reason "toolchain upgraded to 2.0" and return the close reason issue.show reports afterwards.
;; expect: "toolchain upgraded to 2.0"
;; after: {"bd-13": {"status": "closed", "close_reason": "toolchain upgraded to 2.0"}}
;; assumes: issue.show's issue carries beads' "close_reason"
(issue.close (hash "id" "bd-13" "reason" "toolchain upgraded to 2.0"))
(hash-ref* (payload (issue.show (hash "id" "bd-13"))) "issue" "close_reason")
