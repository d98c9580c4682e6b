(define n 10)
(range n m)
(define m (#%black-box 20))
