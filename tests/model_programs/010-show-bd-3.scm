;; task: Look up issue bd-3. Return a hash with the keys "title", "status" and "labels" (a list of strings) taken from the issue.
;; expect: {"title":"Payment webhook retries forever","status":"open","labels":["backend","payments"]}
(define e (issue.show (hash "id" "bd-3")))
(define issue (hash-ref (payload e) "issue"))
(hash "title" (hash-ref issue "title")
      "status" (hash-ref issue "status")
      "labels" (hash-ref issue "labels"))
