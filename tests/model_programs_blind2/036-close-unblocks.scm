;; task: You finished bd-19. Close it with reason "template API frozen at v1.9" and report what that changed in the ready queue. Return {"newlyReady": ids ready after but not before, sorted by id; "gone": ids ready before but not after, sorted by id}.
;; expect: {"newlyReady":["bd-11","bd-20","bd-21","bd-22"],"gone":["bd-19"]}
;; after: {"bd-19": {"status": "closed", "close_reason": "template API frozen at v1.9"}}
(define (ready-ids)
  (for/list ([i (hash-ref (payload (issue.ready)) "items")])
    (hash-ref i "id")))
(define before (ready-ids))
(define c (issue.close (hash "id" "bd-19" "reason" "template API frozen at v1.9")))
(define after (ready-ids))
(hash "newlyReady" (sort (filter (lambda (x) (not (member x before))) after) string<?)
      "gone" (sort (filter (lambda (x) (not (member x after))) before) string<?))
