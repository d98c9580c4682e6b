;; task: Which issues depend on bd-8 (directly, with a dependency of any type)? Return their ids as a list of strings sorted alphabetically.
;; mistake: direction given as a hash (hash "up" #t), as an old signature showed, instead of the string "up".
;; fix: the error must name direction and its values "down", "up", "both".
;; added: after the fixes, by the tusk session that made them (the 22 above were written before)
(define t (dep.tree (hash "id" "bd-8" "direction" (hash "up" #t))))
(sort (map (lambda (c) (hash-ref c "id")) (hash-ref* (payload t) "tree" "children")) string<?)
