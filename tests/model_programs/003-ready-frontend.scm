;; task: Which ready issues carry the label "frontend"? Return their ids as a list of strings, in the order issue.ready gives them.
;; expect: ["bd-1","bd-10","bd-2","bd-20","bd-15"]
(define e (issue.ready (hash "filter" (hash "labels" (list "frontend")))))
(define issues (hash-ref* (payload e) "issues"))
(map (lambda (i) (hash-ref i "id")) issues)
