;; task: Give me the titles of the ready issues whose type is bug. Return a list of title strings, in the order issue.ready gives them.
;; expect: ["Checkout page crashes on empty cart","Password reset email has a broken link","Payment webhook retries forever","Flaky test in the cart service"]
(define e (issue.ready (hash "filter" (hash "types" (list "bug")))))
(cond
  [(accepted? e)
   (for/list ([i (hash-ref (payload e) "issues")])
     (hash-ref i "title"))]
  [else (result-class e)])
