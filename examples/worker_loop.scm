;; One bounded worker step on the harness hooks: boot, claim one item, do
;; the work (here: check the store), decide about a failure with the retry
;; policy, and stop with a handoff that releases the lease.
;; Run with --policy-digest "$(tusk policy digest)" --instruction-ref R.
(define me "agent.example")

;; boot: roots, diagnostics, session, leases held, the next target
(define boot (payload (harness.boot (hash "workerId" me))))
(displayln (->string (list "boot" (hash-ref* boot "session" "mode") "next" (hash-ref boot "next"))))

;; step: claim one bounded work item
(define claim (issue.claim_next (hash "assignee" me)))
(define issue (and (accepted? claim) (hash-ref (payload claim) "issue")))

(if (hash? issue)
    (let* ([id (hash-ref issue "id")]
           ;; the work: a verification this step must pass
           [check (issue.check)]
           [ok (equal? (hash-ref (payload check) "result") "accepted")]
           ;; on failure, the policy says whether to retry and what then
           [decision (if ok
                         #f
                         (payload (harness.retry.decide
                                   (hash "failureClasses" (failure-classes check) "attempt" 1))))]
           [stop (harness.stop
                  (hash "issueId" id "workerId" me
                        "summary" (if ok (string-append "checked " id) (string-append "check failed on " id))
                        "nextStep" (if ok (string-append "continue " id) "retry the check")
                        "lease" "release"))])
      (hash "issue" id
            "verified" ok
            "retry" (and decision (hash-ref decision "retry"))
            "stopped" (result-class stop)
            "handoff" (hash-ref* (payload stop) "lease" "state")))
    (hash "issue" void "claim" (result-class claim) "next" (hash-ref boot "next")))
