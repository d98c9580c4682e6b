;; task: Comment leaderboard: count the comments each author has written across all issues. Return a hash from author to number of comments.
;; expect: {"agent.lena":3,"agent.mira":2,"agent.omar":3}
;; assumes: issue.comments' payload lists the comments under "comments", each with "author"; 31 host calls fit the server's call limit
(define all (hash-ref (payload (issue.list)) "items"))

(for/fold ([tally (hash)]) ([i all])
  (define cs
    (hash-ref (payload (issue.comments (hash "id" (hash-ref i "id")))) "comments" '()))
  (foldl (lambda (c t) (hash-update t (hash-ref c "author") (lambda (n) (+ n 1)) 0))
         tally
         cs))
