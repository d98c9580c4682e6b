;; task: Which issues depend on bd-8 (directly, with a dependency of any type)? Return their ids as a list of strings sorted alphabetically.
;; expect: ["bd-17","bd-7"]
(define e (dep.tree (hash "id" "bd-8" "direction" "up" "maxDepth" 1)))

;; collect ids of every node below the root
(define (collect node)
  (let ([children (hash-ref node "children" '())])
    (apply append
           (map (lambda (c) (cons (hash-ref c "id") (collect c))) children))))

(if (accepted? e)
    (sort (collect (hash-ref (payload e) "tree")) string<?)
    (result-class e))
