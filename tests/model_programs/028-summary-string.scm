;; task: Write a one-line queue summary of the form "<n> ready, <m> blocked, <k> in progress" (counting open issues waiting on a blocker as blocked and issues with status in_progress as in progress). Return the string.
;; expect: "12 ready, 3 blocked, 2 in progress"
(define ready (length (hash-ref (payload (issue.ready)) "issues")))
(define blocked (length (hash-ref (payload (issue.blocked)) "issues")))
(define in-progress (length (hash-ref (payload (issue.list (hash "status" "in_progress"))) "issues")))
(format "~a ready, ~a blocked, ~a in progress" ready blocked in-progress)
