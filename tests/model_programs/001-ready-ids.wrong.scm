;; task: List the ids of every issue that is ready to be worked on now. Return a list of id strings, in the order issue.ready gives them.
;; mistake: the ready items have no key "name"; the id is under "id" (and the title under "title").
;; fix: the error must list the item's keys, so the model sees "id".
;; added: after the fixes, by the tusk session that made them (the 22 above were written before)
(define e (issue.ready))
(map (lambda (i) (hash-ref i "name")) (hash-ref (payload e) "items"))
