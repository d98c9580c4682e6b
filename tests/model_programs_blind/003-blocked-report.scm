;; task: Report every issue that is waiting on an open blocker. Return a list of hashes with keys "id" (the issue's id) and "blockers" (the ids of its open blockers, sorted as strings), ordered by the number in the id (bd-3 before bd-14).
;; expect: [{"id":"bd-3","blockers":["bd-2"]},{"id":"bd-6","blockers":["bd-7"]},{"id":"bd-14","blockers":["bd-15"]},{"id":"bd-20","blockers":["bd-19"]},{"id":"bd-28","blockers":["bd-3"]},{"id":"bd-29","blockers":["bd-14"]}]
;; assumes: issue.blocked lists every non-closed issue with a non-closed `blocks` blocker, including one whose status is blocked (bd-14), as bd blocked does; a blocker whose status is blocked (bd-14 for bd-29) counts as open; each item's "blockers" is a list of id strings
(define (id-num id)
  (string->number (cadr (string-split id "-"))))

(define items (hash-ref (payload (issue.blocked)) "items"))

(define rows
  (for/list ([it items])
    (hash "id" (hash-ref it "id")
          "blockers" (sort (hash-ref it "blockers" '()) string<?))))

(sort rows (lambda (a b) (< (id-num (hash-ref a "id")) (id-num (hash-ref b "id")))))
