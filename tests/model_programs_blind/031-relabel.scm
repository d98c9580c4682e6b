;; task: On bd-12 ("Dark mode"), add the label "needs-design" and remove the label "ui". Return the issue's labels afterwards, as the label call reports them (a list, in stored order).
;; expect: ["mobile","needs-design"]
;; after: {"bd-12": {"labels": ["mobile", "needs-design"]}}
;; assumes: issue.label's payload gives the labels after the change under "labels"
(define e (issue.label (hash "id" "bd-12"
                             "add" (list "needs-design")
                             "remove" (list "ui"))))
(hash-ref (payload e) "labels")
