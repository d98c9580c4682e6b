;; task: What does bd-29 ("Load test the scheduler API") depend on, directly or transitively? Return the ids in the dependency tree below bd-29 (bd-29 itself left out), without duplicates, sorted as strings.
;; expect: ["bd-14","bd-15"]
;; assumes: dep.tree's payload has a root node (under "root", else the payload itself) whose "children" are nodes with "id" and their own "children"
(define t (payload (dep.tree (hash "id" "bd-29" "direction" "down"))))
(define root (hash-ref t "root" t))

(define (collect node)
  (append-map (lambda (child)
                (cons (hash-ref child "id") (collect child)))
              (hash-ref node "children" '())))

(sort (remove-duplicates (collect root)) string<?)
