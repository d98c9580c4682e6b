;; task: Look up issue bd-3. Return a hash with the keys "title", "status" and "labels" (a list of strings) taken from the issue.
;; mistake: calls issue.get, an action that does not exist.
;; fix: there is no issue.get; the action that returns one issue is issue.show.
(define e (issue.get (hash "id" "bd-3")))
(define issue (hash-ref (payload e) "issue"))
(hash "title" (hash-ref issue "title")
      "status" (hash-ref issue "status")
      "labels" (hash-ref issue "labels"))
