;; task: Tag bd-15 with the label "needs-triage". Return the issue's labels after the change, as a list of strings in stored order.
;; expect: ["frontend","needs-triage"]
;; after: {"bd-15": {"labels": ["frontend","needs-triage"]}}
(define e (issue.label (hash "id" "bd-15" "add" (list "needs-triage"))))
(if (accepted? e)
    (hash-ref (payload e) "labels")
    (result-class e))
