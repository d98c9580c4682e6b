;; task: Which label is carried by the most ready issues? Return that label as a string (there is a single winner).
;; expect: "backend"
(define issues (hash-ref (payload (issue.ready)) "issues"))

(define counts
  (foldl (lambda (i h)
           (foldl (lambda (l h2) (hash-set h2 l (add1 (hash-ref h2 l 0))))
                  h
                  (hash-ref i "labels" '())))
         (hash)
         issues))

(define best-count (apply max (hash-values counts)))
(car (findf (lambda (pair) (= (cdr pair) best-count)) (hash->list counts)))
