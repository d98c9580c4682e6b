;; task: Who commented on bd-10, in order? Return the list of comment authors in the order the comments were made (repeats kept).
;; expect: ["agent.lena","agent.mira","agent.lena"]
;; assumes: issue.comments' payload lists the comments under "comments", each a beads comment with "author"
(define e (issue.comments (hash "id" "bd-10")))
(map (lambda (c) (hash-ref c "author"))
     (hash-ref (payload e) "comments"))
