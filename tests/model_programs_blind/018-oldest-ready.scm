;; task: Which ready issue has been waiting longest? Return the id of the oldest ready issue (earliest created_at) as the queue statistics report it.
;; expect: "bd-1"
;; assumes: issue.stats gives the oldest ready issue as a hash under "oldestReady" with an "id"
(define stats (payload (issue.stats)))
(hash-ref* stats "oldestReady" "id")
