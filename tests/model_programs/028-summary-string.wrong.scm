;; task: Write a one-line queue summary of the form "<n> ready, <m> blocked, <k> in progress" (counting open issues waiting on a blocker as blocked and issues with status in_progress as in progress). Return the string.
;; mistake: passes integers straight to string-append.
;; fix: string-append takes strings only; the counts are integers and need number->string (or use format).
(define ready (length (hash-ref (payload (issue.ready)) "issues")))
(define blocked (length (hash-ref (payload (issue.blocked)) "issues")))
(define in-progress (length (hash-ref (payload (issue.list (hash "status" "in_progress"))) "issues")))
(string-append ready " ready, " blocked " blocked, " in-progress " in progress")
