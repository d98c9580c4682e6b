;; task: Which labels appear on ready issues? Return one string: the distinct labels sorted alphabetically and joined with "," (no spaces).
;; expect: "a11y,auth,backend,checkout,database,design,docs,frontend,infra,orders,payments,search,security,testing"
(define issues (hash-ref (payload (issue.ready)) "issues"))

(define (add-unique lst x)
  (if (member x lst) lst (cons x lst)))

(define labels
  (foldl (lambda (i acc)
           (foldl (lambda (l acc2) (add-unique acc2 l)) acc (hash-ref i "labels" '())))
         '()
         issues))

(string-join (sort labels string<?) ",")
