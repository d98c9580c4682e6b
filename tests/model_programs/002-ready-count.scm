;; task: How many issues are ready to start right now? Return the count as an integer.
;; expect: 12
(let* ([e (issue.ready)]
       [issues (hash-ref (payload e) "issues" '())])
  (length issues))
