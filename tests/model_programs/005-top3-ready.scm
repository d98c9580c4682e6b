;; task: Show the three most urgent ready issues. Return a list of three hashes, each with the keys "id", "title" and "priority" (an integer), in the order issue.ready gives them.
;; expect: [{"id":"bd-1","title":"Checkout page crashes on empty cart","priority":0},{"id":"bd-13","title":"Password reset email has a broken link","priority":0},{"id":"bd-3","title":"Payment webhook retries forever","priority":1}]
(define (take-n lst n)
  (if (or (= n 0) (null? lst))
      '()
      (cons (car lst) (take-n (cdr lst) (- n 1)))))

(define ready (hash-ref (payload (issue.ready)) "issues"))

(map (lambda (i)
       (hash "id" (hash-ref i "id")
             "title" (hash-ref i "title")
             "priority" (hash-ref i "priority")))
     (take-n ready 3))
