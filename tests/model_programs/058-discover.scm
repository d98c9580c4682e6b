;; task: While working on bd-3 you found that the webhook handler has no idempotency key. Record that as a new bug discovered from bd-3 (title "Webhook handler lacks idempotency key", priority 1). Return true if the new issue has a discovered-from dependency on bd-3, false otherwise.
;; expect: true
(define d (issue.discover (hash "discoveredFrom" "bd-3"
                                "title" "Webhook handler lacks idempotency key"
                                "issueType" "bug"
                                "priority" 1)))
(cond
  [(rejected? d)
   (displayln (failure-classes d))
   #f]
  [else
   (define new-id (hash-ref* (payload d) "issue" "id"))
   (define deps (or (hash-ref* (payload (issue.show (hash "id" new-id))) "issue" "dependencies") '()))
   (if (findf (lambda (dep)
                (and (equal? (hash-ref dep "depends_on_id") "bd-3")
                     (equal? (hash-ref dep "type") "discovered-from")))
              deps)
       #t
       #f)])
