;; task: Which open issues are held up by bd-3? Return their ids as a list of strings sorted alphabetically.
;; expect: ["bd-12"]
(define blocked (hash-ref (payload (issue.blocked)) "issues"))

(define (blocker-ids entry)
  (map (lambda (b) (if (string? b) b (hash-ref b "id")))
       (hash-ref entry "blockers" '())))

(sort
 (map (lambda (entry) (hash-ref entry "id"))
      (filter (lambda (entry) (member "bd-3" (blocker-ids entry))) blocked))
 string<?)
