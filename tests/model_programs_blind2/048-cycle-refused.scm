;; task: Someone asks to make bd-14 wait on bd-16 (a blocks edge, bd-14 depends on bd-16), but bd-16 already waits on bd-15, which waits on bd-14. Try it, handle the refusal, and confirm the graph is still acyclic. Return {"added": whether dep.add was accepted, "hasCycle": the integrity check's hasCycle afterwards}.
;; expect: {"added":false,"hasCycle":false}
(define e (dep.add (hash "issueId" "bd-14" "dependsOnId" "bd-16" "type" "blocks")))
(define added (accepted? e))
(unless added
  (displayln (format "dep.add refused: ~a" (failure-classes e))))
(define diag (payload (dep.diagnostics (hash))))
(hash "added" added
      "hasCycle" (hash-ref* diag "integrity" "hasCycle"))
