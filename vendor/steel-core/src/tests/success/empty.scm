(assert! (empty? '()))
(assert! (not (empty? (list 10 20 30 40))))
