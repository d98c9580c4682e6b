;; task: Which issues are in progress? Return their ids as a list of strings, in the order issue.list gives them (priority, then id).
;; expect: ["bd-19","bd-6"]
(define e (issue.list (hash "status" "in_progress")))
(if (rejected? e)
    (begin (displayln (failure-classes e)) '())
    (map (lambda (i) (hash-ref i "id")) (hash-ref (payload e) "issues")))
