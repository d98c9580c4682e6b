;; task: A step failed with lease_stale. Ask the retry policy about attempt 1, read its maxAttempts, then ask again for the attempt after the last allowed one. Return {"retryPastMax": the second decision's retry flag, "sameRule": whether both decisions name the same ruleId}.
;; expect: {"retryPastMax":false,"sameRule":true}
;; assumes: maxAttempts is an integer and an attempt beyond it is never retried; the rule is chosen by failure class, not by attempt
(define (decide n)
  (harness.retry.decide (hash "failureClasses" (list "lease_stale") "attempt" n)))
(define d1 (payload (decide 1)))
(define limit (hash-ref d1 "maxAttempts" 3))
(define d2 (payload (decide (+ limit 1))))
(hash "retryPastMax" (hash-ref d2 "retry")
      "sameRule" (equal? (hash-ref d1 "ruleId" #f) (hash-ref d2 "ruleId" #f)))
