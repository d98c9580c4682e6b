;; task: How many issues are ready to start right now (open, no open blocker, no live lease)? Return the count as an integer.
;; expect: 17
;; assumes: only `blocks` edges to a non-closed issue make an issue blocked; parent-child and discovered-from edges never do (as in bd ready), so bd-8 and bd-9 under the blocked epic bd-6 still count as ready, and epics themselves can be ready
(define r (issue.ready))
(hash-ref (payload r) "count")
