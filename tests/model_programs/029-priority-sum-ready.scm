;; task: Add up the priority numbers of all ready issues. Return the sum as an integer.
;; expect: 18
(define issues (hash-ref (payload (issue.ready)) "issues"))
(apply + (map (lambda (i) (hash-ref i "priority")) issues))
