;; task: The usage event schema needs another field: reopen bd-13. Return {"status": its status afterwards, "closeReason": its close reason afterwards or false, "ready": whether it is now ready}.
;; expect: {"status":"open","closeReason":false,"ready":true}
;; after: {"bd-13": {"status": "open", "close_reason": null, "closed_at": null}}
(define r (issue.reopen (hash "id" "bd-13")))
(define iss (hash-ref (payload (issue.show (hash "id" "bd-13"))) "issue"))
(define ready-ids
  (map (lambda (i) (hash-ref i "id"))
       (hash-ref (payload (issue.ready)) "items")))
(hash "status" (hash-ref iss "status")
      "closeReason" (hash-ref iss "close_reason" #f)
      "ready" (if (member "bd-13" ready-ids) #t #f))
