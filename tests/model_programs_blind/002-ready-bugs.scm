;; task: List the ids of the bugs that are ready to work on, highest priority first, then by id. Return a list of id strings.
;; expect: ["bd-10","bd-11","bd-19","bd-16"]
;; assumes: a blocks edge on a closed issue (bd-19 on bd-18) does not block, and a discovered-from edge (bd-16 on bd-15) never blocks
(define e (issue.ready (hash "filter" (hash "types" (list "bug")))))
(for/list ([it (hash-ref (payload e) "items")])
  (hash-ref it "id"))
