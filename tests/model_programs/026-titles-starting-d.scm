;; task: List the ready issues whose title starts with the letter "D". Return their ids as a list of strings, in the order issue.ready gives them.
;; expect: ["bd-10","bd-17","bd-15"]
(define e (issue.ready))
(define issues (hash-ref (payload e) "issues"))
(define matching
  (filter (lambda (i) (string-prefix? (hash-ref i "title") "D")) issues))
(map (lambda (i) (hash-ref i "id")) matching)
