;; task: Which ready issue is the oldest (earliest created)? Return its id as a string.
;; expect: "bd-1"
(define stats (payload (issue.stats)))
(define oldest (hash-ref stats "oldestReady" #f))
(cond
  [(string? oldest) oldest]
  [(hash? oldest) (hash-ref oldest "id")]
  [else
   ;; fall back: compare created_at of ready issues
   (let loop ([is (hash-ref (payload (issue.ready)) "issues")] [best #f])
     (cond
       [(null? is) (hash-ref best "id")]
       [(or (not best)
            (string<? (hash-ref (car is) "created_at") (hash-ref best "created_at")))
        (loop (cdr is) (car is))]
       [else (loop (cdr is) best)]))])
