;; task: Replace bd-20's labels with exactly "frontend", "a11y" and "audit" (in that order). Return the labels as stored afterwards, a list of strings.
;; mistake: passes labels as a comma-separated string (the command-line form) instead of a list of strings.
;; fix: in a program, labels is a list of strings: (list "frontend" "a11y" "audit"); the comma-separated form is only for the command line.
(issue.update (hash "id" "bd-20" "labels" "frontend,a11y,audit"))
(hash-ref* (payload (issue.show (hash "id" "bd-20"))) "issue" "labels")
