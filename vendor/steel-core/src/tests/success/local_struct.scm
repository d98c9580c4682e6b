(define (foo)
    (struct Applesauce (a b c))
    (Applesauce 1 2 3))

(foo)