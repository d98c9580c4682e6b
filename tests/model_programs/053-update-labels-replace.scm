;; task: Replace bd-20's labels with exactly "frontend", "a11y" and "audit" (in that order). Return the labels as stored afterwards, a list of strings.
;; expect: ["frontend","a11y","audit"]
;; after: {"bd-20": {"labels": ["frontend","a11y","audit"]}}
(issue.update (hash "id" "bd-20" "labels" (list "frontend" "a11y" "audit")))
(hash-ref* (payload (issue.show (hash "id" "bd-20"))) "issue" "labels")
