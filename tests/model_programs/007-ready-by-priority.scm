;; task: Group the ready issues by priority. Return a hash whose keys are the priorities written as strings ("0", "1", …) and whose values are lists of ids in the order issue.ready gives them; only priorities that occur.
;; expect: {"0":["bd-1","bd-13"],"1":["bd-3","bd-4","bd-8","bd-10"],"2":["bd-2","bd-16","bd-17","bd-20"],"3":["bd-15","bd-18"]}
(define ready (hash-ref (payload (issue.ready)) "issues"))

(define (group issues acc)
  (if (null? issues)
      acc
      (let* ([i (car issues)]
             [k (number->string (hash-ref i "priority"))]
             [existing (hash-ref acc k '())])
        (group (cdr issues)
               (hash-set acc k (append existing (list (hash-ref i "id"))))))))

(group ready (hash))
