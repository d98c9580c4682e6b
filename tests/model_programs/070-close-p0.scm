;; task: Hotfix sweep as agent.hot: claim every ready priority-0 issue one at a time and close each with the reason "hotfix". Return how many issues you closed, as an integer.
;; expect: 2
;; after: {"bd-1": {"status": "closed", "close_reason": "hotfix"}, "bd-13": {"status": "closed", "close_reason": "hotfix"}}
(define closed-count 0)

(define (sweep)
  (let* ([e (issue.claim_next (hash "assignee" "agent.hot"
                                    "filter" (hash "priorityMax" 0)))]
         [p (payload e)])
    (when (and (accepted? e) (hash-ref p "claimed"))
      (let ([id (hash-ref (hash-ref p "issue") "id")])
        (when (accepted? (issue.close (hash "id" id "reason" "hotfix")))
          (set! closed-count (+ closed-count 1))
          (sweep))))))

(sweep)
closed-count
