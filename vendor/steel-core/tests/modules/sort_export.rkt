(require "sort.rkt")

(provide sort)

(define (sort x) (merge-sort x))