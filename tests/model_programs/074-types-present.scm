;; task: Which issue types occur among the ready issues? Return the distinct type names as a list of strings sorted alphabetically.
;; expect: ["bug","chore","feature","task"]
(define issues (hash-ref (payload (issue.ready)) "issues"))
(define seen
  (for/fold ([h (hash)]) ([i issues])
    (hash-set h (hash-ref i "issue_type") #t)))
(sort (hash-keys seen) string<?)
