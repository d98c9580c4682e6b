;; task: For each epic, count its direct children that are not closed. Return a hash from epic id to that count.
;; expect: {"bd-1":4,"bd-6":1,"bd-23":1}
;; assumes: the filter key "parent" matches direct children only (parent-child edges), so bd-9 (a child of bd-8) does not count for bd-6 and bd-24 (a child of bd-22) does not count for bd-23
(define epics
  (hash-ref (payload (issue.list (hash "issueType" "epic"))) "items"))

(for/fold ([acc (hash)]) ([ep epics])
  (define id (hash-ref ep "id"))
  (define kids
    (hash-ref (payload (issue.list (hash "filter" (hash "parent" id)))) "items"))
  (hash-set acc id
            (count (lambda (k) (not (equal? (hash-ref k "status") "closed"))) kids)))
