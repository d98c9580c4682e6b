(define (foo)
    (struct Applesauce (a b c))
    (Applesauce 1 2 3))

(Applesauce 1 2 3)