;; task: How is the dependency graph made up? Return a hash from dependency type to the number of edges of that type, over every edge in the store.
;; expect: {"parent-child":14,"blocks":9,"waits-for":2,"discovered-from":2,"related":1}
;; assumes: dep.project with no view returns every edge once, whatever its type
(define items (hash-ref (payload (dep.project (hash))) "items"))
(for/fold ([acc (hash)]) ([e items])
  (hash-update acc (hash-ref e "type") (lambda (n) (+ n 1)) 0))
