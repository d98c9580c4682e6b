;; task: Demote to priority 4 every ready issue labelled "docs" or "cleanup". Return the ids you changed, sorted by the number in the id.
;; expect: ["bd-26","bd-30"]
;; after: {"bd-26": {"priority": 4}, "bd-30": {"priority": 4}}
(define e (issue.ready (hash "filter" (hash "labelsAny" (list "docs" "cleanup")))))

(define changed
  (for/list ([it (hash-ref (payload e) "items")])
    (define id (hash-ref it "id"))
    (issue.update (hash "id" id "priority" 4))
    id))

(sort changed
      (lambda (a b)
        (< (string->number (substring a 3)) (string->number (substring b 3)))))
