;; task: Over all issues in the store, whatever their status, count how many there are at each priority. Return a hash whose keys are priorities as strings ("0" … "4") and values are counts.
;; expect: {"0":2,"1":7,"2":7,"3":3,"4":1}
(define statuses '("open" "in_progress" "blocked" "deferred" "closed"))

(define all-issues
  (apply append
         (map (lambda (s)
                (hash-ref (payload (issue.list (hash "status" s))) "issues" '()))
              statuses)))

(define hist
  (let loop ([is all-issues] [h (hash)])
    (if (null? is)
        h
        (let ([k (number->string (hash-ref (car is) "priority"))])
          (loop (cdr is) (hash-set h k (+ 1 (hash-ref h k 0))))))))

(printf "~a issues total\n" (length all-issues))
hist
