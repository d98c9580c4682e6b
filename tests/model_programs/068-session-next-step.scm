;; task: Stop for today: persist a stopped session handoff with summary "released bd-2 after review" and next step "pick up bd-16". Read it back and return a hash {"summary": <summary>, "next": <next step>}.
;; expect: {"summary":"released bd-2 after review","next":"pick up bd-16"}
(harness.session.write (hash "status" "stopped"
                             "summary" "released bd-2 after review"
                             "nextStep" "pick up bd-16"))
(let* ([p (payload (harness.session.read))]
       [s (if (hash-ref p "session" #f) (hash-ref p "session") p)])
  (hash "summary" (hash-ref s "summary")
        "next" (hash-ref s "nextStep")))
