;; task: On bd-39, add the label "needs-review" and drop "maintenance". Return the issue's labels afterwards, in stored order.
;; expect: ["pipeline","api","needs-review"]
;; after: {"bd-39": {"labels": ["pipeline", "api", "needs-review"]}}
(define e (issue.label (hash "id" "bd-39" "add" (list "needs-review") "remove" (list "maintenance"))))
(if (accepted? e)
    (hash-ref (payload e) "labels")
    (list (result-class e)))
