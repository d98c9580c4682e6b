(foo 1 2 3)
(define (foo x y z)
    (+ x y z n m))

(define m 10)
(define n 20)