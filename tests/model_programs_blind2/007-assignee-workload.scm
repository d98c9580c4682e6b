;; task: Who is holding what? For issues with status open or in_progress that have an assignee, return a hash from assignee to the list of their issue ids sorted by id.
;; expect: {"agent.kafka":["bd-14"],"agent.pay":["bd-27"],"maria.chen":["bd-30","bd-36"]}
(define (items-with-status s)
  (hash-ref (payload (issue.list (hash "status" s))) "items" '()))

(define all (append (items-with-status "open") (items-with-status "in_progress")))

(define by-assignee
  (for/fold ([acc (hash)]) ([i all])
    (define who (hash-ref i "assignee" #f))
    (if who
        (hash-update acc who (lambda (ids) (cons (hash-ref i "id") ids)) '())
        acc)))

(for/hash ([(who ids) (in-hash by-assignee)])
  (values who (sort ids string<?)))
