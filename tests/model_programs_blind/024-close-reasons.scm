;; task: For every closed issue, return a list of hashes with "id" and "reason" (its close reason), ordered by the number in the id.
;; expect: [{"id":"bd-5","reason":"model approved"},{"id":"bd-18","reason":"dashboards live"},{"id":"bd-25","reason":"fixed in 2.3.1"}]
;; assumes: issue.show returns the whole beads record under "issue", close_reason included
(define closed (hash-ref (payload (issue.list (hash "status" "closed"))) "items"))

(define rows
  (for/list ([c closed])
    (define id (hash-ref c "id"))
    (define full (hash-ref (payload (issue.show (hash "id" id))) "issue"))
    (hash "id" id "reason" (hash-ref full "close_reason" ""))))

(sort rows < #:key (lambda (r) (string->number (substring (hash-ref r "id") 3))))
