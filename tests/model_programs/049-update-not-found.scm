;; task: Add the note "checked" to issue bd-99. Return "ok" if it worked, otherwise the failure class as a string.
;; expect: "issue.not_found"
(define e (issue.update (hash "id" "bd-99" "notes" "checked")))
(cond
  [(accepted? e) "ok"]
  [else
   (for-each (lambda (fc) (displayln fc)) (failure-classes e))
   (result-class e)])
