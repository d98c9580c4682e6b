;; task: Persist the session handoff: state "active", issue bd-10, summary "Reproduced the SSO plus-address failure", next step "Patch the email normaliser", instruction ref "instr://issue/bd-10". Then read it back and return a hash with "summary" and "nextStep" as the read reports them.
;; expect: {"summary":"Reproduced the SSO plus-address failure","nextStep":"Patch the email normaliser"}
;; assumes: harness.session.read's payload holds the handoff under "session", with "summary" and "nextStep"
(harness.session.write (hash "state" "active"
                             "issueId" "bd-10"
                             "summary" "Reproduced the SSO plus-address failure"
                             "nextStep" "Patch the email normaliser"
                             "instructionRefs" (list "instr://issue/bd-10")))
(define s (hash-ref (payload (harness.session.read)) "session"))
(hash "summary" (hash-ref s "summary")
      "nextStep" (hash-ref s "nextStep"))
