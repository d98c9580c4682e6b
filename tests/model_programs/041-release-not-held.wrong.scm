;; task: As agent.a, try to release the lease on bd-19 (which another worker holds). Return the result class of the release call as a string ("accepted" or the failure class).
;; mistake: the release leaves out assignee, which issue.lease_release requires.
;; fix: the error must name the missing key assignee.
;; added: after the fixes, by the tusk session that made them (the 22 above were written before)
(define r (issue.lease_release (hash "id" "bd-19")))
(result-class r)
