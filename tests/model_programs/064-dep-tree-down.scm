;; task: What does bd-12 depend on, directly or through other issues? Return the ids as a list of strings sorted alphabetically (bd-12 itself excluded).
;; expect: ["bd-3"]
(define t (dep.tree (hash "id" "bd-12" "direction" "down")))

(define (walk node)
  (append-map (lambda (child) (cons (hash-ref child "id") (walk child)))
              (hash-ref node "children" '())))

(define ids (walk (hash-ref (payload t) "tree")))
(sort (remove-duplicates ids) string<?)
