;; task: What hangs directly off the epic bd-1? Walk the dependency tree upward from bd-1 (what depends on it), one level deep, and return those issue ids sorted by the number in the id.
;; expect: ["bd-2","bd-3","bd-4","bd-5","bd-28"]
;; assumes: dep.tree follows every edge type, parent-child included, and "up" lists the dependents; maxDepth 1 means direct dependents only; the payload has a root node (under "root", else the payload itself) whose "children" carry "id"
(define t (payload (dep.tree (hash "id" "bd-1" "direction" "up" "maxDepth" 1))))
(define kids (hash-ref (hash-ref t "root" t) "children" '()))
(sort (remove-duplicates (map (lambda (k) (hash-ref k "id")) kids))
      <
      #:key (lambda (id) (string->number (substring id 3))))
