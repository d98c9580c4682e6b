;; task: Which ready issues carry the label "frontend"? Return their ids as a list of strings, in the order issue.ready gives them.
;; mistake: the filter's labels is given as a single string "frontend" instead of a list of strings.
;; fix: filter.labels must be a list of strings, e.g. (list "frontend"), not the string "frontend".
(define e (issue.ready (hash "filter" (hash "labels" "frontend"))))
(define issues (hash-ref* (payload e) "issues"))
(map (lambda (i) (hash-ref i "id")) issues)
