;; task: Tag bd-15 with the label "needs-triage". Return the issue's labels after the change, as a list of strings in stored order.
;; mistake: gives the labels to add as a single string instead of a list of strings.
;; fix: the labels to add must be a list of strings, e.g. (list "needs-triage"), not the string "needs-triage".
(define e (issue.label (hash "id" "bd-15" "add" "needs-triage")))
(if (accepted? e)
    (hash-ref (payload e) "labels")
    (result-class e))
