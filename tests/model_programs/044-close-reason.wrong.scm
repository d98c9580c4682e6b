;; task: Close bd-16 with the reason "cannot reproduce". Return true if the close was accepted, false otherwise.
;; mistake: calls the host function with two positional arguments instead of one hash.
;; fix: host functions take one hash of named arguments: (issue.close (hash "id" "bd-16" "reason" "cannot reproduce")).
(accepted? (issue.close "bd-16" "cannot reproduce"))
