;; task: Count the labels on all ready issues together (a label on two issues counts twice). Return the total as an integer.
;; expect: 26
(define (count-labels issues)
  (if (null? issues)
      0
      (+ (length (hash-ref (car issues) "labels" '()))
         (count-labels (cdr issues)))))

(count-labels (hash-ref (payload (issue.ready)) "issues"))
