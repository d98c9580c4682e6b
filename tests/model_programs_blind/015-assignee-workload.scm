;; task: How much non-closed work does each assignee hold? Return a hash from assignee name to the number of non-closed issues assigned to them (unassigned issues left out).
;; expect: {"agent.mira":2,"agent.omar":2}
;; assumes: issue.list with no arguments returns every issue; an unassigned issue has no "assignee" key in list items
(define items (hash-ref (payload (issue.list)) "items"))

(define (bump alist k)
  (cond [(assoc k alist)
         => (lambda (p) (cons (cons k (+ 1 (cdr p))) (remove p alist)))]
        [else (cons (cons k 1) alist)]))

(define tally
  (foldl (lambda (i acc)
           (let ([who (hash-ref i "assignee" #f)])
             (if (and who (not (equal? (hash-ref i "status") "closed")))
                 (bump acc who)
                 acc)))
         '()
         items))

(for/fold ([h (hash)]) ([p tally])
  (hash-set h (car p) (cdr p)))
