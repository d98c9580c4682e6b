;; task: Put bd-18 on hold by setting its status to deferred, then return how many issues are ready afterwards, as an integer.
;; expect: 11
;; after: {"bd-18": {"status": "deferred"}}
(define u (issue.update (hash "id" "bd-18" "status" "deferred")))
(if (accepted? u)
    (length (hash-ref (payload (issue.ready)) "issues"))
    (result-class u))
