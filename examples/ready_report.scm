;; Read-only report: what is ready, what is blocked, and is the graph sound?
;; Needs no authority: every call here is a read.
(define ready (payload (issue.ready)))
(define blocked (payload (issue.blocked)))
(define check (issue.check))
(display "ready: ")
(display (hash-ref ready "count"))
(display ", blocked: ")
(displayln (hash-ref blocked "count"))
(hash "ready" (map (lambda (item) (hash-ref item "id")) (hash-ref ready "items"))
      "blocked" (hash-ref blocked "count")
      "graph" (result-class check))
