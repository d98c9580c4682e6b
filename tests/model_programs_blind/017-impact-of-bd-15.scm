;; task: Impact analysis: which issues are held up, directly or transitively, by bd-15 ("Message queue cluster setup")? Follow blocking dependencies only. Return their ids sorted by the number in the id.
;; expect: ["bd-14","bd-29"]
;; assumes: issue.blocked includes issues whose status is blocked (bd-14) and gives each item's open blockers as id strings under "blockers"; a discovered-from edge (bd-16) is not blocking
(define blocked (hash-ref (payload (issue.blocked)) "items"))

(define (blocked-by id)
  (for/list ([it blocked]
             #:when (member id (hash-ref it "blockers" '())))
    (hash-ref it "id")))

(define (closure frontier seen)
  (if (null? frontier)
      seen
      (let* ([next (blocked-by (car frontier))]
             [new (filter (lambda (x) (not (member x seen))) next)])
        (closure (append (cdr frontier) new) (append seen new)))))

(sort (closure (list "bd-15") '())
      (lambda (a b)
        (< (string->number (substring a 3)) (string->number (substring b 3)))))
