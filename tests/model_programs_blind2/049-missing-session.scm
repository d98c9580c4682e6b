;; task: At the start of a turn, read the persisted session handoff. If there is one with a non-empty summary, return that summary; if the read is refused or there is no summary, return "no-session".
;; expect: "no-session"
;; assumes: a fresh store has no persisted session, so the read is refused or returns no summary
(define e (harness.session.read))
(cond
  [(rejected? e) "no-session"]
  [else
   (define s (hash-ref (payload e) "summary" ""))
   (if (and (string? s) (not (string=? s ""))) s "no-session")])
