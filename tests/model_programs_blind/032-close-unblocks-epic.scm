;; task: The payment provider is chosen: close bd-7 with the reason "chose provider with EU residency", then check whether the billing epic bd-6 (which bd-7 blocked) is now ready. Return a hash with "closed" (the closed issue's id) and "epicReady" (a boolean).
;; expect: {"closed":"bd-7","epicReady":true}
;; after: {"bd-7": {"status": "closed", "close_reason": "chose provider with EU residency"}}
(define c (issue.close (hash "id" "bd-7" "reason" "chose provider with EU residency")))
(define ready-ids
  (map (lambda (i) (hash-ref i "id"))
       (hash-ref (payload (issue.ready)) "items")))
(hash "closed" (hash-ref (payload c) "id")
      "epicReady" (if (member "bd-6" ready-ids) #t #f))
