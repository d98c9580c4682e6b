;; task: Park dark mode: set bd-12's status to deferred with the notes "after the offline release". Return the number of ready issues afterwards (or the refusal class if the update is refused).
;; expect: 16
;; after: {"bd-12": {"status": "deferred", "notes": "after the offline release"}}
;; assumes: only blocks edges to non-closed issues block, so 17 issues were ready before (as in bd ready)
(let ([e (issue.update (hash "id" "bd-12"
                             "status" "deferred"
                             "notes" "after the offline release"))])
  (if (accepted? e)
      (hash-ref (payload (issue.ready)) "count")
      (result-class e)))
