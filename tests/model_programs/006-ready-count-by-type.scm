;; task: Count the ready issues by issue type. Return a hash from type name (e.g. "bug") to the number of ready issues of that type; leave out types with no ready issue.
;; expect: {"bug":4,"chore":2,"feature":2,"task":4}
(define issues (hash-ref (payload (issue.ready)) "issues"))

(foldl (lambda (issue counts)
         (let ([t (hash-ref issue "issue_type")])
           (hash-set counts t (+ 1 (hash-ref counts t 0)))))
       (hash)
       issues)
