;; One bounded worker step (boot / step / stop of the harness contract):
;; boot from the session, claim the next ready issue, record the step,
;; write a stopped session with a next step, and release the lease.
;; Run with --policy-digest "$(tusk policy digest)" --instruction-ref R.
(define me "agent.example")

;; boot
(define boot (payload (harness.session.bootstrap)))
(displayln (->string (list "boot mode" (hash-ref boot "mode"))))

;; step: claim one bounded work item
(define claim (issue.claim_next (hash "assignee" me)))
(define issue (and (accepted? claim) (hash-ref (payload claim) "issue")))

(define (stop-with summary next-step issue-id)
  (harness.session.write
   (if issue-id
       (hash "state" "stopped" "summary" summary "nextStep" next-step "issueId" issue-id)
       (hash "state" "stopped" "summary" summary "nextStep" next-step))))

(if (hash? issue)
    (let* ([id (hash-ref issue "id")]
           [lease (hash-ref issue "lease")]
           [step (harness.trajectory.append
                  (hash "stepId" (string-append "worker." id) "action" "worker.step"
                        "resultClass" "accepted" "issueId" id))])
      ;; stop: hand off and release the lease so another worker can pick it up
      (stop-with (string-append "looked at " id) (string-append "continue " id) id)
      (define release (issue.lease_release (hash "id" id "assignee" me "leaseId" (hash-ref lease "lease_id"))))
      (hash "issue" id "step" (result-class step) "released" (result-class release)))
    (begin
      (stop-with "queue empty" "wait for new work" #f)
      (hash "issue" void "claim" (result-class claim))))
