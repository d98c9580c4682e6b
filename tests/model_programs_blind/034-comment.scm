;; task: As agent.a, comment "Null address comes from imported jobs" on bd-11, then return the texts of all of bd-11's comments, in order.
;; expect: ["Null address comes from imported jobs"]
;; assumes: issue.comments' payload lists the comments under "comments", each with "text"
(issue.comment (hash "id" "bd-11"
                     "text" "Null address comes from imported jobs"
                     "author" "agent.a"))
(define cs (hash-ref (payload (issue.comments (hash "id" "bd-11"))) "comments"))
(for/list ([c cs])
  (hash-ref c "text"))
