;; task: What depends on bd-15, directly or transitively? Use the dependency tree upward from bd-15 and return the ids of every issue in it other than bd-15, sorted by id.
;; expect: ["bd-16","bd-17"]
;; assumes: the payload's "tree" is a nested hash whose root is bd-15, each node with "id" and a "children" list of nodes
(define t (payload (dep.tree (hash "id" "bd-15" "direction" "up" "maxDepth" 10))))

(define (walk node)
  (cons (hash-ref node "id")
        (append-map walk (hash-ref node "children" '()))))

(sort (remove-duplicates (filter (lambda (id) (not (equal? id "bd-15")))
                                 (walk (hash-ref t "tree"))))
      string<?)
