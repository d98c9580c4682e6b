;; task: Give a priority histogram of the open issues (status open). Return a hash with keys "P0".."P4" and the number of open issues at each priority.
;; expect: {"P0":2,"P1":8,"P2":9,"P3":4,"P4":2}
(define items (hash-ref (payload (issue.list (hash "status" "open"))) "items"))
(define h (make-hash))
(for ([p (in-range 0 5)])
  (hash-set! h (format "P~a" p) 0))
(for ([i items])
  (hash-update! h (format "P~a" (hash-ref i "priority")) add1))
h
