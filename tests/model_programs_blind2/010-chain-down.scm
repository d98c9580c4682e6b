;; task: Walk the chain of work bd-17 waits on: starting from bd-17, repeatedly follow its blocks or waits-for dependency to the issue depended on, until an issue has none. Return the ids visited after bd-17, in walk order.
;; expect: ["bd-16","bd-15","bd-14","bd-13"]
;; assumes: issue.show's issue "dependencies" holds the issue's own edges as beads objects (issue_id, depends_on_id, type)
(define (blocking-targets id)
  (define iss (hash-ref (payload (issue.show (hash "id" id))) "issue"))
  (for/list ([d (hash-ref iss "dependencies" '())]
             #:when (and (equal? (hash-ref d "issue_id" id) id)
                         (member (hash-ref d "type") '("blocks" "waits-for"))))
    (hash-ref d "depends_on_id")))

(let loop ([id "bd-17"] [acc '()] [fuel 20])
  (define next (blocking-targets id))
  (if (or (null? next) (zero? fuel))
      (reverse acc)
      (loop (car next) (cons (car next) acc) (sub1 fuel))))
