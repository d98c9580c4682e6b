;; task: Report the queue's ready and blocked counts. Return a hash {"ready": <integer>, "blocked": <integer>}.
;; expect: {"ready":12,"blocked":3}
(define stats (payload (issue.stats)))
(hash "ready" (hash-ref stats "ready")
      "blocked" (hash-ref stats "blocked"))
