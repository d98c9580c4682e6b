;; task: Build an index of the ready priority-0 issues. Return a hash from issue id to title.
;; expect: {"bd-1":"Checkout page crashes on empty cart","bd-13":"Password reset email has a broken link"}
(define e (issue.ready (hash "filter" (hash "priority" (hash "min" 0 "max" 0)))))
(define issues (hash-ref (payload e) "issues"))
(define index (make-hash))
(for-each (lambda (i)
            (when (= 0 (hash-ref i "priority"))
              (hash-set! index (hash-ref i "id") (hash-ref i "title"))))
          issues)
index
