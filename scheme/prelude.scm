;;; tusk prelude for the steel.sandbox.v1 profile.
;;;
;;; Compiled once into the prepared engine; every program sees these names.
;;; The syntax forms are adapted from steel-core's stdlib.scm (MIT OR Apache-2.0),
;;; rewritten on plain syntax-rules because the sandbox engine has no kernel
;;; (no procedural macros, hence no compile-time route to the host).

;; ---------------------------------------------------------------- syntax

(define-syntax or
  (syntax-rules ()
    [(or) #f]
    [(or x) x]
    [(or x y) (let ([z x]) (if z z y))]
    [(or x y ...) (or x (or y ...))]))

(define-syntax and
  (syntax-rules ()
    [(and) #t]
    [(and x) x]
    [(and x y) (if x y #f)]
    [(and x y ...) (and x (and y ...))]))

; A body of several forms gets a scope of its own, so that it may start
; with definitions (Racket's `when`, `unless` and `cond` clauses are
; internal-definition contexts; a `begin` in an expression is not).
(define-syntax when
  (syntax-rules ()
    [(when a) (if a (void) (void))]
    [(when a b) (if a b (void))]
    [(when a b c ...) (if a (let () b c ...) (void))]))

(define-syntax unless
  (syntax-rules ()
    [(unless a) (if a (void) (void))]
    [(unless a b) (if a (void) b)]
    [(unless a b c ...) (if a (void) (let () b c ...))]))

(define-syntax cond
  (syntax-rules (else =>)
    [(cond [else e1]) e1]
    [(cond [else e1 e2 ...]) (let () e1 e2 ...)]
    [(cond [e1 => f]) (let ([res e1]) (if res (f res) (void)))]
    [(cond [e1 => f] c1 ...) (let ([res e1]) (if res (f res) (cond c1 ...)))]
    [(cond [e1]) e1]
    [(cond [e1] c1 ...) (or e1 (cond c1 ...))]
    [(cond [e1 e2]) (if e1 e2 (void))]
    [(cond [e1 e2 e3 ...]) (if e1 (let () e2 e3 ...) (void))]
    [(cond [e1 e2] c1 ...) (if e1 e2 (cond c1 ...))]
    [(cond [e1 e2 e3 ...] c1 ...) (if e1 (let () e2 e3 ...) (cond c1 ...))]))

(define-syntax case
  (syntax-rules (else)
    [(case (key ...) clauses ...) (let ([atom-key (key ...)]) (case atom-key clauses ...))]
    [(case key [else r1 r2 ...]) (begin r1 r2 ...)]
    [(case key [(atoms ...) r1 r2 ...])
     (if (member key '(atoms ...)) (begin r1 r2 ...) (void))]
    [(case key [(atoms ...) r1 r2 ...] clause clauses ...)
     (if (member key '(atoms ...)) (begin r1 r2 ...) (case key clause clauses ...))]))

(define-syntax let*
  (syntax-rules ()
    [(let* () body ...) ((lambda () body ...))]
    [(let* ([var val] rest ...) body ...) ((lambda (var) (let* (rest ...) body ...)) val)]))

(define-syntax tusk-letrec-helper
  (syntax-rules ()
    [(tusk-letrec-helper () body ...) (begin body ...)]
    [(tusk-letrec-helper ((var val) rest ...) body ...)
     (begin (define var val) (tusk-letrec-helper (rest ...) body ...))]))

(define-syntax letrec*
  (syntax-rules ()
    [(letrec* bindings body ...) ((lambda () (tusk-letrec-helper bindings body ...)))]))

(define-syntax letrec
  (syntax-rules ()
    [(letrec bindings body ...) ((lambda () (tusk-letrec-helper bindings body ...)))]))

(define-syntax do
  (syntax-rules ()
    [(do ((var init step ...) ...) (test expr ...) command ...)
     (letrec* ([loop (lambda (var ...)
                       (if test
                           (begin (void) expr ...)
                           (begin command ... (loop (do "step" var step ...) ...))))])
       (loop init ...))]
    [(do "step" x) x]
    [(do "step" x y) y]))

(define-syntax quasiquote
  (syntax-rules (unquote unquote-splicing #%unquote #%unquote-splicing #%quote)
    [(quasiquote ((quote x) xs ...)) (cons (list 'quote (quasiquote x)) (quasiquote (xs ...)))]
    [(quasiquote (quote x)) (list 'quote (quasiquote x))]
    [(quasiquote ((unquote x) xs ...)) (cons (list 'unquote (quasiquote x)) (quasiquote (xs ...)))]
    [(quasiquote (unquote x)) (list 'unquote (quasiquote x))]
    [(quasiquote ((#%unquote x) xs ...)) (cons x (quasiquote (xs ...)))]
    [(quasiquote (#%unquote x)) x]
    [(quasiquote ((#%unquote-splicing x))) (append x '())]
    [(quasiquote ((#%unquote-splicing x) xs ...)) (append x (quasiquote (xs ...)))]
    [(quasiquote (x xs ...)) (cons (quasiquote x) (quasiquote (xs ...)))]
    [(quasiquote x) 'x]))

;; (with-handler handler body ...): runs body; an error raised inside goes to
;; (handler err) and its value becomes the form's value.
(define (call-with-handler handler thunk)
  (call/cc
   (lambda (k)
     (call-with-exception-handler (lambda (err) (k (handler err))) thunk))))

(define-syntax with-handler
  (syntax-rules ()
    [(with-handler handler body ...) (call-with-handler handler (lambda () body ...))]))


(define (caar p) (car (car p)))
(define (cadr p) (car (cdr p)))
(define (cdar p) (cdr (car p)))
(define (cddr p) (cdr (cdr p)))
(define (caddr p) (car (cdr (cdr p))))
(define (cdddr p) (cdr (cdr (cdr p))))
(define (cadddr p) (car (cdr (cdr (cdr p)))))
(define (caaar p) (car (car (car p))))
(define (caadr p) (car (car (cdr p))))
(define (cadar p) (car (cdr (car p))))
(define (cdaar p) (cdr (car (car p))))
(define (cdadr p) (cdr (car (cdr p))))
(define (cddar p) (cdr (cdr (car p))))
(define (cdaddr p) (cdr (car (cdr (cdr p)))))
(define (cddddr p) (cdr (cdr (cdr (cdr p)))))

;; ---------------------------------------------------------------- guarded allocation
;; Primitives whose result can be far larger than their arguments ask the host
;; for the memory first (scheme_eval.memory_exceeded ends the run otherwise).

(define (make-vector n . fill)
  (tusk-reserve! (* (tusk-int n) 16))
  (apply tusk-raw-make-vector n fill))

(define (make-string n . fill)
  (tusk-reserve! (* (tusk-int n) 4))
  (apply tusk-raw-make-string n fill))

(define (tusk-search s part i)
  (if (> (+ i (string-length part)) (string-length s))
      #f
      (if (string=? (substring s i (+ i (string-length part))) part) i (tusk-search s part (+ i 1)))))
(define (tusk-keyword? v) (if (symbol? v) (string-prefix? (symbol->string v) "#:") #f))
;; Keyword arguments of a procedure that also takes any number of values
;; (`(~a a b #:width 5)`): read from its rest list, and the rest without them.
(define (tusk-kw-get args key default)
  (if (null? args)
      default
      (if (if (tusk-keyword? (car args)) (equal? (symbol->string (car args)) key) #f)
          (cadr args)
          (tusk-kw-get (cdr args) key default))))
(define (tusk-kw-strip args)
  (if (null? args) '() (if (tusk-keyword? (car args)) (tusk-kw-strip (cddr args)) (cons (car args) (tusk-kw-strip (cdr args))))))
(define (string-replace s from to #:all? [all? #t])
  (tusk-reserve! (tusk-replace-bound s from to))
  (if all?
      (tusk-raw-string-replace s from to)
      ((lambda (at) (if at (string-append (substring s 0 at) to (substring s (+ at (string-length from)) (string-length s))) s))
       (tusk-search s from 0))))

(define (expt base power)
  (tusk-reserve! (tusk-expt-bound base power))
  (tusk-raw-expt base power))

(define (arithmetic-shift n k)
  (tusk-reserve! (if (> k 0) (quotient k 8) 0))
  (tusk-raw-arithmetic-shift n k))

(define (tusk-range-step from to step acc)
  (if (if (> step 0) (>= from to) (<= from to))
      (reverse acc)
      (tusk-range-step (+ from step) to step (cons from acc))))
(define (range . args)
  (tusk-reserve! (* 16 (tusk-range-count args)))
  (if (= (length args) 3)
      (if (= (caddr args) 0)
          (error "range: the step is 0, which never reaches the end")
          (tusk-range-step (car args) (cadr args) (caddr args) '()))
      (apply tusk-raw-range args)))

;; ---------------------------------------------------------------- lists


;; The list procedures use plain `if` and top-level `tusk-` helpers rather
;; than `cond` and internal defines: the prepared engine compiles them once
;; per host process, and those forms cost the most to compile.
(define (tusk-map1 f lst acc)
  (if (null? lst) (reverse acc) (tusk-map1 f (cdr lst) (cons (f (car lst)) acc))))
(define (tusk-any-null? ls) (if (null? ls) #f (if (null? (car ls)) #t (tusk-any-null? (cdr ls)))))
(define (tusk-cars ls acc) (if (null? ls) (reverse acc) (tusk-cars (cdr ls) (cons (car (car ls)) acc))))
(define (tusk-cdrs ls acc) (if (null? ls) (reverse acc) (tusk-cdrs (cdr ls) (cons (cdr (car ls)) acc))))
(define (tusk-map-n f ls acc)
  (if (tusk-any-null? ls)
      (reverse acc)
      (tusk-map-n f (tusk-cdrs ls '()) (cons (apply f (tusk-cars ls '())) acc))))

(define (map f lst . more)
  (if (null? more) (tusk-map1 f lst '()) (tusk-map-n f (cons lst more) '())))

(define (tusk-for-each1 f lst)
  (if (null? lst) (void) (begin (f (car lst)) (tusk-for-each1 f (cdr lst)))))
(define (for-each f lst . more)
  (if (null? more) (tusk-for-each1 f lst) (begin (apply map f lst more) (void))))

(define (tusk-filter pred lst acc)
  (if (null? lst)
      (reverse acc)
      (tusk-filter pred (cdr lst) (if (pred (car lst)) (cons (car lst) acc) acc))))
(define (filter pred lst) (tusk-filter pred lst '()))

(define (tusk-remove-first v lst eq acc)
  (if (null? lst)
      (reverse acc)
      (if (eq v (car lst)) (append (reverse acc) (cdr lst)) (tusk-remove-first v (cdr lst) eq (cons (car lst) acc)))))
;; Racket's (remove v lst [eq]) drops the first element equal to v; given a
;; procedure and a list it drops every element the procedure accepts
;; (SRFI-1's remove, which programs write too).
(define (remove v lst . eq)
  (if (if (procedure? v) (null? eq) #f)
      (filter (lambda (x) (not (v x))) lst)
      (tusk-remove-first v lst (if (null? eq) equal? (car eq)) '())))

(define (tusk-foldl1 f acc lst)
  (if (null? lst) acc (tusk-foldl1 f (f (car lst) acc) (cdr lst))))
(define (tusk-foldl-n f acc ls)
  (if (tusk-any-null? ls)
      acc
      (tusk-foldl-n f (apply f (append (tusk-cars ls '()) (list acc))) (tusk-cdrs ls '()))))
(define (foldl f acc lst . more)
  (if (null? more) (tusk-foldl1 f acc lst) (tusk-foldl-n f acc (cons lst more))))

(define (foldr f acc lst . more)
  (if (null? more)
      (tusk-foldl1 f acc (reverse lst))
      (tusk-foldl-n f acc (map reverse (cons lst more)))))

(define (reduce f init lst) (foldl f init lst))

(define (max x . rest) (foldl (lambda (y z) (if (> y z) y z)) x rest))
(define (min x . rest) (foldl (lambda (y z) (if (< y z) y z)) x rest))

(define (sum lst) (foldl + 0 lst))
(define (add1 n) (+ n 1))
(define (sub1 n) (- n 1))

(define (find pred lst)
  (if (null? lst) #f (if (pred (car lst)) (car lst) (find pred (cdr lst)))))

(define (any? pred lst)
  (if (null? lst) #f (if (pred (car lst)) #t (any? pred (cdr lst)))))

(define (every? pred lst)
  (if (null? lst) #t (if (pred (car lst)) (every? pred (cdr lst)) #f)))

(define (tusk-assoc key alist eq)
  (if (null? alist)
      #f
      (if (eq key (car (car alist))) (car alist) (tusk-assoc key (cdr alist) eq))))
(define (assoc key alist . eq) (tusk-assoc key alist (if (null? eq) equal? (car eq))))
(define (assq key alist) (tusk-assoc key alist eq?))
(define (assv key alist) (tusk-assoc key alist eqv?))
(define (tusk-member v lst eq)
  (if (null? lst) #f (if (eq v (car lst)) lst (tusk-member v (cdr lst) eq))))
(define (member v lst . eq) (tusk-member v lst (if (null? eq) equal? (car eq))))
(define (memv v lst) (tusk-member v lst eqv?))

(define (tusk-list-index pred lst i)
  (if (null? lst) #f (if (pred (car lst)) i (tusk-list-index pred (cdr lst) (+ i 1)))))
(define (list-index pred lst) (tusk-list-index pred lst 0))

(define (tusk-list-take lst n acc)
  (if (if (= n 0) #t (null? lst))
      (reverse acc)
      (tusk-list-take (cdr lst) (- n 1) (cons (car lst) acc))))
(define (list-take lst n) (tusk-list-take lst n '()))

(define (list-drop lst n) (if (if (= n 0) #t (null? lst)) lst (list-drop (cdr lst) (- n 1))))

(define (iota n [start 0] [step 1]) (map (lambda (i) (+ start (* i step))) (range 0 n)))

(define (flatten lst)
  (if (null? lst)
      '()
      (if (list? (car lst))
          (append (flatten (car lst)) (flatten (cdr lst)))
          (cons (car lst) (flatten (cdr lst))))))

(define (vector->list v) (tusk-vector->list v))

;; Stable merge sort: (sort lst less?). Written with plain `if` and
;; top-level helpers: every worker is a fork of an engine that compiled this
;; once per host process, and internal defines and `cond` cost the most to
;; compile.
(define (tusk-sort-merge a b less? acc)
  (if (null? a)
      (append (reverse acc) b)
      (if (null? b)
          (append (reverse acc) a)
          (if (less? (car b) (car a))
              (tusk-sort-merge a (cdr b) less? (cons (car b) acc))
              (tusk-sort-merge (cdr a) b less? (cons (car a) acc))))))

(define (tusk-sort-split lst a b)
  (if (null? lst) (cons a b) (tusk-sort-split (cdr lst) b (cons (car lst) a))))

(define (tusk-sort lst less?)
  (if (if (null? lst) #t (null? (cdr lst)))
      lst
      ((lambda (halves)
         (tusk-sort-merge (tusk-sort (reverse (car halves)) less?)
                          (tusk-sort (reverse (cdr halves)) less?)
                          less?
                          '()))
       (tusk-sort-split lst '() '()))))

;; (sort lst less? [#:key f] [#:cache-keys? b]): stable.
(define (sort lst less? #:key [key #f] #:cache-keys? [cache? #f])
  (if key
      (map cdr (tusk-sort (map (lambda (x) (cons (key x) x)) lst) (lambda (a b) (less? (car a) (car b)))))
      (tusk-sort lst less?)))

;; ---------------------------------------------------------------- hashes and envelopes

;; (hash-ref h k), or with a default: (hash-ref h k #f), or a thunk called
;; on a miss, (hash-ref h k (lambda () 0)) (Racket's failure result).
;; (hash-ref* h "a" "b") follows keys, #f as soon as one is missing, is
;; native (dialect.rs), as is the key rule both keep (`issue_type` finds
;; `issueType`, `issues` a view's `items`).
(define (tusk-hash-ref-or h k d extra)
  (if (null? extra)
      ((lambda (found) (if (null? found) (if (procedure? d) (d) d) (car found)))
       (tusk-hash-find h k))
      (tusk-hash-ref h k d (car extra))))
(define (hash-ref h k . default)
  (if (null? default) (tusk-hash-ref h k) (tusk-hash-ref-or h k (car default) (cdr default))))

(define (accepted? envelope) (equal? (tusk-hash-ref envelope "resultClass") "accepted"))
(define (rejected? envelope) (not (accepted? envelope)))
(define (result-class envelope) (tusk-hash-ref envelope "resultClass"))
(define (failure-classes envelope) (tusk-hash-ref envelope "failureClasses"))
(define (payload envelope) (tusk-hash-ref envelope "payload"))

;; ---------------------------------------------------------------- names from other Schemes
;; Racket's, R7RS's and SRFI-1's names for what this dialect does
;; (src/sandbox/dialect.rs: the natives, and the names left unbound with
;; what to write instead).

(define empty '())
(define (hash-set h k v) (hash-insert h k v))
(define (hash-has-key? h k) (hash-contains? h k))
(define (hash-count h) (hash-length h))
(define (hash-update h k f . default)
  (hash-insert h k (f (if (null? default) (tusk-hash-ref h k) (hash-ref h k (car default))))))
(define (hash-map h f) (map (lambda (kv) (f (car kv) (cdr kv))) (hash->list h)))
(define (hash-for-each h f) (for-each (lambda (kv) (f (car kv) (cdr kv))) (hash->list h)))
(define (tusk-trim-left s sep repeat?)
  (if (if (> (string-length sep) 0) (string-prefix? s sep) #f)
      ((lambda (rest) (if repeat? (tusk-trim-left rest sep #t) rest)) (substring s (string-length sep) (string-length s)))
      s))
(define (tusk-trim-right s sep repeat?)
  (if (if (> (string-length sep) 0) (string-suffix? s sep) #f)
      ((lambda (rest) (if repeat? (tusk-trim-right rest sep #t) rest)) (substring s 0 (- (string-length s) (string-length sep))))
      s))
;; Racket's (string-trim s [sep] #:left? #:right? #:repeat?): whitespace by
;; default; a separator is taken off each end once (all of them with #:repeat?).
(define (string-trim s [sep #f] #:left? [left? #t] #:right? [right? #t] #:repeat? [repeat? #f])
  (if sep
      ((lambda (l) (if right? (tusk-trim-right l sep repeat?) l)) (if left? (tusk-trim-left s sep repeat?) s))
      (if left? (if right? (trim s) (trim-start s)) (if right? (trim-end s) s))))
(define (string-split s [sep #f] #:trim? [trim? #t] #:repeat? [repeat? #f])
  (tusk-string-split s sep trim? repeat?))
(define (string-join strs [sep " "] #:before-first [before ""] #:before-last [before-last #f] #:after-last [after ""])
  (string-append
   before
   (if (if before-last (> (length strs) 1) #f)
       (string-append (tusk-string-join (reverse (cdr (reverse strs))) sep) before-last (car (reverse strs)))
       (tusk-string-join strs sep))
   after))
(define (take lst n) (list-take lst n))
(define (drop lst n) (list-drop lst n))
(define (append-map f lst) (apply append (map f lst)))
(define (filter-map f lst) (filter (lambda (x) x) (map f lst)))
(define (memf pred lst) (if (null? lst) #f (if (pred (car lst)) lst (memf pred (cdr lst)))))
(define (findf pred lst) (find pred lst))
(define (count pred lst) (length (filter pred lst)))
(define (andmap pred lst) (every? pred lst))
(define (ormap pred lst) (any? pred lst))
(define (index-of lst v) (list-index (lambda (x) (equal? x v)) lst))
(define (build-list n f) (map f (range 0 n)))
(define (tusk-dedup lst seen acc)
  (if (null? lst)
      (reverse acc)
      (if (hashset-contains? seen (car lst))
          (tusk-dedup (cdr lst) seen acc)
          (tusk-dedup (cdr lst) (hashset-insert seen (car lst)) (cons (car lst) acc)))))
(define (remove-duplicates lst) (tusk-dedup lst (hashset) '()))
(define (tusk-arg-best f lst better?)
  (foldl (lambda (x best) (if (better? (f x) (f best)) x best)) (car lst) (cdr lst)))
(define (argmin f lst) (tusk-arg-best f lst <))
(define (argmax f lst) (tusk-arg-best f lst >))
(define (in-list lst) lst)
(define (in-range . args) (apply range args))
(define (in-vector v) (vector->list v))
(define (in-hash-keys h) (hash-keys h))
(define (in-hash-values h) (hash-values h))

;; ---------------------------------------------------------------- values
;; Several values are one value here, tagged: (values a b) gives it,
;; call-with-values, let-values and define-values take it apart; one value
;; is itself.
(define tusk-values-tag (string->symbol "#<values>"))
(define (values . xs)
  (if (if (pair? xs) (null? (cdr xs)) #f) (car xs) (cons tusk-values-tag xs)))
(define (tusk-values->list v)
  (if (if (pair? v) (eq? (car v) tusk-values-tag) #f) (cdr v) (list v)))
(define (call-with-values producer consumer) (apply consumer (tusk-values->list (producer))))
(define-syntax let-values
  (syntax-rules ()
    [(_ () body ...) (let () body ...)]
    [(_ ([formals e] rest ...) body ...)
     (apply (lambda formals (let-values (rest ...) body ...)) (tusk-values->list e))]))
(define-syntax let*-values
  (syntax-rules ()
    [(_ () body ...) (let () body ...)]
    [(_ ([formals e] rest ...) body ...)
     (apply (lambda formals (let*-values (rest ...) body ...)) (tusk-values->list e))]))
;; The expression is evaluated once: the first name holds the list of values
;; while the others take theirs, then its own.
(define-syntax tusk-define-parts
  (syntax-rules ()
    [(_ () parts) (void)]
    [(_ (a) parts) (define a (car parts))]
    [(_ (a b ...) parts) (begin (define a (car parts)) (tusk-define-parts (b ...) (cdr parts)))]))
(define-syntax define-values
  (syntax-rules ()
    [(_ () e) (define tusk-no-values (begin e (void)))]
    [(_ (a) e) (define a (car (tusk-values->list e)))]
    [(_ (a b ...) e)
     (begin (define a (tusk-values->list e))
            (tusk-define-parts (b ...) (cdr a))
            (set! a (car a)))]))
(define-syntax receive
  (syntax-rules ()
    [(_ formals e body ...) (apply (lambda formals body ...) (tusk-values->list e))]))

;; ---------------------------------------------------------------- exceptions
;; (raise v) raises any value; with-handlers, guard and the handlers see that
;; value (an error object for what `error` and the primitives raise).
(define tusk-raised (box #f))
(define (tusk-write-text v) (format "~s" v))
(define (tusk-error-message e) (trim (tusk-error-text e)))
(define (raise v . continuable)
  (if (error-object? v)
      (error (tusk-error-message v))
      (begin
        (set-box! tusk-raised (list (string-append "uncaught exception: " (tusk-write-text v)) v))
        (error (car (unbox tusk-raised))))))
(define (raise-continuable v)
  ((lambda (handlers)
     (if (null? handlers)
         (raise v)
         ;; The handler runs where the value was raised, under the handlers
         ;; outside its own; its value is raise-continuable's.
         (begin
           (tusk-set-handlers! (cdr handlers))
           ((lambda (r) (tusk-set-handlers! handlers) r) ((car handlers) v)))))
   (tusk-handlers)))
;; The value a handler sees for the error object e: the raised value when
;; e came from (raise v), else e.
(define (tusk-exn-value e)
  ((lambda (r)
     (if (if r (if (error-object? e) (equal? (tusk-error-message e) (car r)) #f) #f) (cadr r) e))
   (unbox tusk-raised)))
(define (tusk-reraise v e) (if (eq? v e) (error (tusk-error-message e)) (raise v)))
(define (exn? v) (error-object? v))
(define (exn:fail? v) (error-object? v))
(define (exn:fail:contract? v) (error-object? v))
(define (exn:fail:contract:divide-by-zero? v) (error-object? v))
(define (exn:fail:user? v) (error-object? v))
(define (exn:fail:read? v) #f)
(define (exn:fail:filesystem? v) #f)
(define (exn:fail:network? v) #f)
(define (exn-message e) (if (error-object? e) (tusk-error-message e) (format "~a" e)))
(define (error-message e) (exn-message e))
(define (error-irritants e) '())
(define (condition/report-string e) (exn-message e))
(define (raise-user-error . args) (apply error args))
(define (raise-argument-error name expected v)
  (error (format "~a: contract violation; expected: ~a; given: ~s" name expected v)))
(define (tusk-dispatch v e clauses)
  (if (null? clauses)
      (tusk-reraise v e)
      (if ((car (car clauses)) v)
          ((cdr (car clauses)) v)
          (tusk-dispatch v e (cdr clauses)))))
;; Racket's (with-handlers ([pred handler] ...) body ...): the first
;; handler whose predicate takes the raised value handles it; none: raised on.
(define-syntax with-handlers
  (syntax-rules ()
    [(_ ([pred handler] ...) body ...)
     (call-with-handler
      (lambda (e) (tusk-dispatch (tusk-exn-value e) e (list (cons pred handler) ...)))
      (lambda () body ...))]))
(define-syntax with-handlers*
  (syntax-rules ()
    [(_ clauses body ...) (with-handlers clauses body ...)]))
(define (with-exception-handler handler thunk)
  ((lambda (saved)
     (tusk-set-handlers! (cons handler saved))
     ((lambda (r) (tusk-set-handlers! saved) r)
      (call-with-exception-handler
       (lambda (e) (tusk-set-handlers! saved) (handler (tusk-exn-value e)))
       thunk)))
   (tusk-handlers)))
(define-syntax tusk-guard-clauses
  (syntax-rules (else =>)
    [(_ var e) (tusk-reraise var e)]
    [(_ var e [else result ...]) (begin result ...)]
    [(_ var e [test => f] clause ...) ((lambda (t) (if t (f t) (tusk-guard-clauses var e clause ...))) test)]
    [(_ var e [test] clause ...) ((lambda (t) (if t t (tusk-guard-clauses var e clause ...))) test)]
    [(_ var e [test result ...] clause ...) (if test (begin result ...) (tusk-guard-clauses var e clause ...))]))
;; R7RS (guard (e clause ...) body ...): cond clauses over the raised value.
(define-syntax guard
  (syntax-rules ()
    [(_ (var clause ...) body ...)
     (call-with-handler
      (lambda (e) ((lambda (var) (tusk-guard-clauses var e clause ...)) (tusk-exn-value e)))
      (lambda () body ...))]))
(define (dynamic-wind before thunk after)
  (before)
  ((lambda (r) (after) r)
   (call-with-handler (lambda (e) (after) (tusk-reraise (tusk-exn-value e) e)) thunk)))

;; ---------------------------------------------------------------- mutable hashes
;; Racket's make-hash: a box holding an immutable hash (src/sandbox/hashes.rs);
;; every reader of hashes reads it as the hash it holds.
(define (tusk-immutable h) (if (tusk-mutable-hash? h) (unbox h) h))
(define (tusk-hash-of init)
  (if (hash? init)
      (tusk-immutable init)
      (foldl (lambda (p acc) (hash-insert acc (car p) (cdr p))) (hash) init)))
(define (make-hash . init) (box (if (null? init) (hash) (tusk-hash-of (car init)))))
(define (make-hasheq . init) (apply make-hash init))
(define (make-hasheqv . init) (apply make-hash init))
(define (make-weak-hash . init) (apply make-hash init))
(define (make-immutable-hash . init) (if (null? init) (hash) (tusk-hash-of (car init))))
(define (make-immutable-hasheq . init) (apply make-immutable-hash init))
(define (hash-copy h) (box (tusk-immutable h)))
(define (tusk-mutable! name h)
  (if (tusk-mutable-hash? h)
      h
      (error (string-append name " changes a mutable hash, made with (make-hash); an immutable one gives a new hash: write (hash-set h k v)"))))
(define (hash-set! h k v) (set-box! (tusk-mutable! "hash-set!" h) (hash-insert (unbox h) k v)))
(define (hash-remove! h k) (set-box! (tusk-mutable! "hash-remove!" h) (hash-remove (unbox h) k)))
(define (hash-clear! h) (set-box! (tusk-mutable! "hash-clear!" h) (hash)))
(define (hash-update! h k f . default) (hash-set! h k (f (apply hash-ref h k default))))
(define (hash-ref! h k v)
  (if (hash-contains? h k)
      (hash-ref h k)
      ((lambda (x) (hash-set! h k x) x) (if (procedure? v) (v) v))))
(define (tusk-set-pairs h kvs)
  (if (null? kvs) h (tusk-set-pairs (hash-insert h (car kvs) (cadr kvs)) (cddr kvs))))
(define (hash-set* h . kvs) (tusk-set-pairs (tusk-immutable h) kvs))
(define (hash-set*! h . kvs) (set-box! (tusk-mutable! "hash-set*!" h) (tusk-set-pairs (unbox h) kvs)))

;; An endless count, walked lazily: (in-naturals [start]).
(define tusk-naturals-tag (string->symbol "#<naturals>"))
(define (in-naturals . start) (vector tusk-naturals-tag (if (null? start) 0 (car start))))
(define (tusk-naturals? s) (if (vector? s) (if (= (vector-length s) 2) (eq? (vector-ref s 0) tusk-naturals-tag) #f) #f))
(define (tusk-seq-null? s) (if (tusk-naturals? s) #f (null? s)))
(define (tusk-seq-car s) (if (tusk-naturals? s) (vector-ref s 1) (car s)))
(define (tusk-seq-cdr s) (if (tusk-naturals? s) (vector tusk-naturals-tag (+ 1 (vector-ref s 1))) (cdr s)))

;; What the `for` forms walk: a list, a vector, a string (its characters),
;; a count n (0 to n-1), a hash (its key . value pairs), or an endless count
;; (in-naturals).
(define (tusk-seq s)
  (if (list? s)
      s
      (if (tusk-naturals? s)
          s
          (if (vector? s)
              (vector->list s)
              (if (string? s)
                  (string->list s)
                  (if (integer? s)
                      (range 0 s)
                      (if (hash? s)
                          (hash->list s)
                          (error "a for clause walks a list, vector, string, count or hash, not" s))))))))
;; A clause that binds several names to a hash's entries, [(k v) h]: each
;; entry as a two-element list, so a value that is itself a list stays whole
;; (the pair ("a" . ("x")) would read as the list ("a" "x")).
(define (tusk-seq-parts s)
  (if (hash? s) (map (lambda (kv) (list (car kv) (cdr kv))) (hash->list s)) (tusk-seq s)))
(define (tusk-keep-map keep? f lst) (map f (filter keep? lst)))
(define (tusk-fold2 f acc xs ys)
  (if (if (null? xs) #t (null? ys)) acc (tusk-fold2 f (f acc (car xs) (car ys)) (cdr xs) (cdr ys))))

;; The parts of one element a clause binds several names to: a pair's car and
;; cdr (a hash's entries), a list's elements.
(define (tusk-parts e n)
  (if (if (pair? e) (not (list? e)) #f)
      (list (car e) (cdr e))
      (if (list? e) e (tusk-values->list e))))

;; One walk of a for form: `step` takes an element and the state and gives
;; the next state; several sequences are walked side by side.
(define (tusk-fold-seq step st s)
  (if (tusk-seq-null? s) st (tusk-fold-seq step (step (tusk-seq-car s) st) (tusk-seq-cdr s))))
(define (tusk-any-seq-null? ss) (if (null? ss) #f (if (tusk-seq-null? (car ss)) #t (tusk-any-seq-null? (cdr ss)))))
(define (tusk-fold-zip step st ss)
  (if (tusk-any-seq-null? ss)
      st
      (tusk-fold-zip step (apply step st (map tusk-seq-car ss)) (map tusk-seq-cdr ss))))

;; The clauses of a for form, Racket's way: the clauses before a keyword walk
;; side by side; #:when, #:unless, #:break and #:final take effect where they
;; stand, and clauses after one are walked inside it. `k` escapes with the
;; state (#:break), `body` gives the next state from the state.
(define-syntax tusk-for-par
  (syntax-rules ()
    [(_ k st () () () body) (body st)]
    [(_ k st () () (#:when g . rest) body) (if g (tusk-for-par k st () () rest body) st)]
    [(_ k st () () (#:unless g . rest) body) (if g st (tusk-for-par k st () () rest body))]
    [(_ k st () () (#:break g . rest) body) (if g (k st) (tusk-for-par k st () () rest body))]
    [(_ k st () () (#:final g . rest) body)
     (if g (k (tusk-for-par k st () () rest body)) (tusk-for-par k st () () rest body))]
    [(_ k st () () ([(a ...) s] . rest) body)
     (tusk-fold-seq (lambda (e st2) (apply (lambda (a ...) (tusk-for-par k st2 () () rest body)) (tusk-parts e (length '(a ...)))))
                    st (tusk-seq-parts s))]
    [(_ k st (x0 x ...) (s0 s ...) ([(a ...) t] . rest) body)
     (tusk-fold-zip (lambda (st2 x0 x ...) (tusk-for-par k st2 () () ([(a ...) t] . rest) body)) st (list (tusk-seq s0) (tusk-seq s) ...))]
    [(_ k st (x ...) (s ...) ([y t] . rest) body) (tusk-for-par k st (x ... y) (s ... t) rest body)]
    [(_ k st (x ...) (s ...) rest body)
     (tusk-fold-zip (lambda (st2 x ...) (tusk-for-par k st2 () () rest body)) st (list (tusk-seq s) ...))]))

;; for*: every clause inside the one before it.
(define-syntax tusk-for-nest
  (syntax-rules ()
    [(_ k st () body) (body st)]
    [(_ k st (#:when g . rest) body) (if g (tusk-for-nest k st rest body) st)]
    [(_ k st (#:unless g . rest) body) (if g st (tusk-for-nest k st rest body))]
    [(_ k st (#:break g . rest) body) (if g (k st) (tusk-for-nest k st rest body))]
    [(_ k st (#:final g . rest) body) (if g (k (tusk-for-nest k st rest body)) (tusk-for-nest k st rest body))]
    [(_ k st ([(a ...) s] . rest) body)
     (tusk-fold-seq (lambda (e st2) (apply (lambda (a ...) (tusk-for-nest k st2 rest body)) (tusk-parts e (length '(a ...)))))
                    st (tusk-seq-parts s))]
    [(_ k st ([x s] . rest) body) (tusk-fold-seq (lambda (x st2) (tusk-for-nest k st2 rest body)) st (tusk-seq s))]))

;; (tusk-for-run walker init clauses step finish): the state starts at init,
;; each pass gives (step state), the result is (finish state).
(define-syntax tusk-for-run
  (syntax-rules (par nest)
    [(_ par init clauses step finish)
     (finish (call/cc (lambda (k) (tusk-for-par k init () () clauses step))))]
    [(_ nest init clauses step finish)
     (finish (call/cc (lambda (k) (tusk-for-nest k init clauses step))))]))

(define (tusk-same x) x)

(define-syntax for
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run par (void) clauses (lambda (st) (begin body ...) (void)) tusk-same)]))
(define-syntax for*
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run nest (void) clauses (lambda (st) (begin body ...) (void)) tusk-same)]))
(define-syntax for/list
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run par '() clauses (lambda (st) (cons (begin body ...) st)) reverse)]))
(define-syntax for*/list
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run nest '() clauses (lambda (st) (cons (begin body ...) st)) reverse)]))
(define-syntax for/vector
  (syntax-rules ()
    [(_ clauses body ...) (list->vector (for/list clauses body ...))]))
(define-syntax for*/vector
  (syntax-rules ()
    [(_ clauses body ...) (list->vector (for*/list clauses body ...))]))
(define (tusk-hash-step st kv) (apply (lambda (k v) (hash-insert st k v)) (tusk-values->list kv)))
(define-syntax for/hash
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run par (hash) clauses (lambda (st) (tusk-hash-step st (begin body ...))) tusk-same)]))
(define-syntax for*/hash
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run nest (hash) clauses (lambda (st) (tusk-hash-step st (begin body ...))) tusk-same)]))
(define-syntax for/sum
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run par 0 clauses (lambda (st) (+ st (begin body ...))) tusk-same)]))
(define-syntax for*/sum
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run nest 0 clauses (lambda (st) (+ st (begin body ...))) tusk-same)]))
(define-syntax for/product
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run par 1 clauses (lambda (st) (* st (begin body ...))) tusk-same)]))
(define-syntax for/count
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run par 0 clauses (lambda (st) (if (begin body ...) (+ st 1) st)) tusk-same)]))
(define-syntax for/last
  (syntax-rules ()
    [(_ clauses body ...) (tusk-for-run par #f clauses (lambda (st) (begin body ...)) tusk-same)]))
;; The escaping forms keep their escape in the state: (k . value).
(define-syntax for/first
  (syntax-rules ()
    [(_ clauses body ...)
     (call/cc (lambda (out) (tusk-for-run par #f clauses (lambda (st) (out (begin body ...))) tusk-same)))]))
(define-syntax for*/first
  (syntax-rules ()
    [(_ clauses body ...)
     (call/cc (lambda (out) (tusk-for-run nest #f clauses (lambda (st) (out (begin body ...))) tusk-same)))]))
(define-syntax for/and
  (syntax-rules ()
    [(_ clauses body ...)
     (call/cc (lambda (out) (tusk-for-run par #t clauses (lambda (st) ((lambda (v) (if v v (out #f))) (begin body ...))) tusk-same)))]))
(define-syntax for*/and
  (syntax-rules ()
    [(_ clauses body ...)
     (call/cc (lambda (out) (tusk-for-run nest #t clauses (lambda (st) ((lambda (v) (if v v (out #f))) (begin body ...))) tusk-same)))]))
(define-syntax for/or
  (syntax-rules ()
    [(_ clauses body ...)
     (call/cc (lambda (out) (tusk-for-run par #f clauses (lambda (st) ((lambda (v) (if v (out v) #f)) (begin body ...))) tusk-same)))]))
(define-syntax for*/or
  (syntax-rules ()
    [(_ clauses body ...)
     (call/cc (lambda (out) (tusk-for-run nest #f clauses (lambda (st) ((lambda (v) (if v (out v) #f)) (begin body ...))) tusk-same)))]))
;; (for/fold ([acc init] ...) (clauses) body): one accumulator is the
;; state; several are a list of them, the body giving (values …).
(define-syntax for/fold
  (syntax-rules ()
    [(_ ([acc init] ... #:result r) clauses body ...)
     (call-with-values (lambda () (for/fold ([acc init] ...) clauses body ...)) (lambda (acc ...) r))]
    [(_ ([acc init]) clauses body ...)
     (tusk-for-run par init clauses (lambda (acc) body ...) tusk-same)]
    [(_ ([acc init] ...) clauses body ...)
     (tusk-for-run par (list init ...) clauses
                   (lambda (st) (apply (lambda (acc ...) (tusk-values->list (begin body ...))) st))
                   (lambda (st) (apply values st)))]))
(define-syntax for*/fold
  (syntax-rules ()
    [(_ ([acc init]) clauses body ...)
     (tusk-for-run nest init clauses (lambda (acc) body ...) tusk-same)]
    [(_ ([acc init] ...) clauses body ...)
     (tusk-for-run nest (list init ...) clauses
                   (lambda (st) (apply (lambda (acc ...) (tusk-values->list (begin body ...))) st))
                   (lambda (st) (apply values st)))]))

;; ---------------------------------------------------------------- racket/base, racket/list, SRFI-1
;; Each as its library documents it (tests/dialect/names.jsonl has an
;; example of every name).

(define (identity x) x)
(define (const v) (lambda args v))
(define (negate f) (lambda args (not (apply f args))))
(define (tusk-compose2 f g) (lambda args (call-with-values (lambda () (apply g args)) f)))
(define (compose . fs)
  (if (null? fs) identity (if (null? (cdr fs)) (car fs) (tusk-compose2 (car fs) (apply compose (cdr fs))))))
(define (compose1 . fs) (apply compose fs))
(define (curry f . args) (lambda more (apply f (append args more))))
(define (curryr f . args) (lambda more (apply f (append more args))))
(define (exact-nonnegative-integer? v) (if (exact-integer? v) (>= v 0) #f))
(define (exact-positive-integer? v) (if (exact-integer? v) (> v 0) #f))
(define (natural? v) (exact-nonnegative-integer? v))
(define (boolean=? a b . more) (if (eq? a b) (if (null? more) #t (apply boolean=? b more)) #f))
(define (cons? v) (pair? v))
(define (non-empty-string? v) (if (string? v) (> (string-length v) 0) #f))
(define (symbol<? a b . more)
  (if (string<? (symbol->string a) (symbol->string b)) (if (null? more) #t (apply symbol<? b more)) #f))
(define (tusk-gcd2 a b) (if (= b 0) a (tusk-gcd2 b (remainder a b))))
(define (gcd . ns)
  (foldl (lambda (n acc) (tusk-gcd2 (abs n) acc)) 0 ns))
(define (lcm . ns)
  (foldl (lambda (n acc) (if (if (= n 0) #t (= acc 0)) 0 (quotient (abs (* n acc)) (tusk-gcd2 (abs n) acc)))) 1 ns))
(define (exact-round x) (inexact->exact (round x)))
(define (exact-floor x) (inexact->exact (floor x)))
(define (exact-ceiling x) (inexact->exact (ceiling x)))
(define (exact-truncate x) (inexact->exact (truncate x)))
(define (quotient/remainder a b) (values (quotient a b) (remainder a b)))
(define (floor/ a b) (apply values (tusk-raw-floor/ a b)))
(define (truncate/ a b) (apply values (tusk-raw-truncate/ a b)))
(define (euclidean/ a b) (apply values (tusk-raw-euclidean/ a b)))
(define (exact-integer-sqrt n) (apply values (tusk-raw-exact-integer-sqrt n)))
(define (real->decimal-string n [digits 2]) (tusk-decimal n digits))

(define (fourth l) (list-ref l 3))
(define (fifth l) (list-ref l 4))
(define (sixth l) (list-ref l 5))
(define (seventh l) (list-ref l 6))
(define (eighth l) (list-ref l 7))
(define (ninth l) (list-ref l 8))
(define (tenth l) (list-ref l 9))
(define (last-pair l) (if (pair? (cdr l)) (last-pair (cdr l)) l))
(define (take-right l n) (list-drop l (- (length l) n)))
(define (drop-right l n) (list-take l (- (length l) n)))
(define (split-at l n) (values (list-take l n) (list-drop l n)))
(define (tusk-takef l pred acc)
  (if (if (null? l) #t (not (pred (car l)))) (reverse acc) (tusk-takef (cdr l) pred (cons (car l) acc))))
(define (takef l pred) (tusk-takef l pred '()))
(define (dropf l pred) (if (if (null? l) #f (pred (car l))) (dropf (cdr l) pred) l))
(define (splitf-at l pred) (values (takef l pred) (dropf l pred)))
(define (take-while pred l) (takef l pred))
(define (drop-while pred l) (dropf l pred))
(define (span pred l) (values (takef l pred) (dropf l pred)))
(define (break pred l) (span (negate pred) l))
(define (list* . args)
  (if (null? (cdr args)) (car args) (cons (car args) (apply list* (cdr args)))))
(define (cons* . args) (apply list* args))
(define (append* . args) (apply append (apply list* args)))
(define (concatenate ls) (apply append ls))
(define (append-reverse rev tail) (append (reverse rev) tail))
(define (xcons a b) (cons b a))
(define (filter-not pred l) (filter (lambda (x) (not (pred x))) l))
(define (partition pred l) (values (filter pred l) (filter-not pred l)))
(define (tusk-count pred ls n)
  (if (tusk-any-null? ls) n (tusk-count pred (tusk-cdrs ls '()) (if (apply pred (tusk-cars ls '())) (+ n 1) n))))
(define (count pred l . more) (tusk-count pred (cons l more) 0))
(define (tusk-remf pred l acc)
  (if (null? l) (reverse acc) (if (pred (car l)) (append (reverse acc) (cdr l)) (tusk-remf pred (cdr l) (cons (car l) acc)))))
(define (remf pred l) (tusk-remf pred l '()))
(define (remove* vs l [eq equal?]) (filter (lambda (x) (not (tusk-member x vs eq))) l))
(define (delete v l [eq equal?]) (filter (lambda (x) (not (eq v x))) l))
(define (tusk-dedup-by l key seen acc)
  (if (null? l)
      (reverse acc)
      ((lambda (k)
         (if (hash-contains? seen k)
             (tusk-dedup-by (cdr l) key seen acc)
             (tusk-dedup-by (cdr l) key (hash-insert seen k #t) (cons (car l) acc))))
       (key (car l)))))
(define (remove-duplicates l [eq equal?] #:key [key identity]) (tusk-dedup-by l key (hash) '()))
(define (delete-duplicates l [eq equal?]) (tusk-dedup-by l identity (hash) '()))
(define (tusk-check-dup l key seen)
  (if (null? l) #f ((lambda (k) (if (hash-contains? seen k) (car l) (tusk-check-dup (cdr l) key (hash-insert seen k #t)))) (key (car l)))))
(define (check-duplicates l [eq equal?] #:key [key identity])
  (tusk-check-dup l key (hash)))
(define (index-where l pred) (list-index pred l))
(define (tusk-indexes l pred i acc)
  (if (null? l) (reverse acc) (tusk-indexes (cdr l) pred (+ i 1) (if (pred (car l)) (cons i acc) acc))))
(define (indexes-of l v [eq equal?]) (tusk-indexes l (lambda (x) (eq x v)) 0 '()))
(define (indexes-where l pred) (tusk-indexes l pred 0 '()))
(define (list-set l i v) (if (= i 0) (cons v (cdr l)) (cons (car l) (list-set (cdr l) (- i 1) v))))
(define (list-update l i f) (list-set l i (f (list-ref l i))))
(define (make-list n [v #f]) (tusk-reserve! (* (tusk-int n) 16)) (map (lambda (i) v) (range 0 n)))
(define (list-tabulate n f) (build-list n f))
(define (add-between l sep)
  (if (if (null? l) #t (null? (cdr l))) l (cons (car l) (cons sep (add-between (cdr l) sep)))))
(define (tusk-group-by l key acc-keys acc)
  (if (null? l)
      (map (lambda (k) (reverse (hash-ref acc k))) (reverse acc-keys))
      ((lambda (k)
         (if (hash-contains? acc k)
             (tusk-group-by (cdr l) key acc-keys (hash-insert acc k (cons (car l) (hash-ref acc k))))
             (tusk-group-by (cdr l) key (cons k acc-keys) (hash-insert acc k (list (car l))))))
       (key (car l)))))
(define (group-by key l [eq equal?]) (tusk-group-by l key '() (hash)))
(define (cartesian-product . ls)
  (if (null? ls) (list '()) (append-map (lambda (x) (map (lambda (rest) (cons x rest)) (apply cartesian-product (cdr ls)))) (car ls))))
(define (tusk-combos l k)
  (if (= k 0) (list '()) (if (null? l) '() (append (map (lambda (c) (cons (car l) c)) (tusk-combos (cdr l) (- k 1))) (tusk-combos (cdr l) k)))))
(define (combinations l [k #f])
  (if k (tusk-combos l k) (append-map (lambda (n) (tusk-combos l n)) (range 0 (+ 1 (length l))))))
(define (find-tail pred l) (if (null? l) #f (if (pred (car l)) l (find-tail pred (cdr l)))))
(define (tusk-any-n pred ls)
  (if (tusk-any-null? ls) #f ((lambda (v) (if v v (tusk-any-n pred (tusk-cdrs ls '())))) (apply pred (tusk-cars ls '())))))
(define (tusk-every-n pred ls last)
  (if (tusk-any-null? ls) last ((lambda (v) (if v (tusk-every-n pred (tusk-cdrs ls '()) v) #f)) (apply pred (tusk-cars ls '())))))
(define (any pred l . more) (tusk-any-n pred (cons l more)))
(define (every pred l . more) (tusk-every-n pred (cons l more) #t))
(define (fold f acc l . more) (apply foldl f acc l more))
(define (fold-left f acc l . more)
  (if (null? more) (tusk-foldl1 (lambda (x a) (f a x)) acc l) (tusk-foldl-n (lambda args (apply f (cons (car (reverse args)) (reverse (cdr (reverse args)))))) acc (cons l more))))
(define (fold-right f acc l . more) (apply foldr f acc l more))
(define (reduce-right f init l)
  (if (null? l) init (if (null? (cdr l)) (car l) (f (car l) (reduce-right f init (cdr l))))))
(define (unfold stop? mapper successor seed [tail-gen #f])
  (if (stop? seed) (if tail-gen (tail-gen seed) '()) (cons (mapper seed) (unfold stop? mapper successor (successor seed) tail-gen))))
(define (zip l . more) (apply map list l more))
(define (alist-cons k v alist) (cons (cons k v) alist))
(define (alist-copy alist) (map (lambda (p) (cons (car p) (cdr p))) alist))
(define (alist-delete k alist [eq equal?]) (filter (lambda (p) (not (eq k (car p)))) alist))
(define (lset-adjoin eq l . vs) (foldl (lambda (v acc) (if (tusk-member v acc eq) acc (cons v acc))) l vs))
(define (lset-union eq . ls)
  (if (null? ls) '() (foldl (lambda (l acc) (apply lset-adjoin eq acc l)) (car ls) (cdr ls))))
(define (lset-intersection eq l . ls) (filter (lambda (x) (every (lambda (other) (tusk-member x other eq)) ls)) l))
(define (lset-difference eq l . ls) (filter (lambda (x) (not (any (lambda (other) (tusk-member x other eq)) ls))) l))
(define (list-copy l) (map identity l))
(define (inclusive-range a b [step 1]) (range a (+ b (if (> step 0) 1 -1)) step))
(define (in-inclusive-range a b [step 1]) (inclusive-range a b step))
(define (in-string s) (string->list s))
;; Two values a step, key and value: a two-element list each (see
;; tusk-seq-parts); in-hash-pairs gives Racket's pairs.
(define (in-hash h) (map (lambda (kv) (list (car kv) (cdr kv))) (hash->list h)))
(define (in-hash-pairs h) (hash->list h))
(define (in-indexed s) (map list (tusk-seq s) (range 0 (length (tusk-seq s)))))
(define (in-value v) (list v))

;; ---------------------------------------------------------------- strings (racket/string, SRFI-13)
(define (string-copy s [start 0] [end #f]) (substring s start (if end end (string-length s))))
(define (build-string n f) (list->string (map f (range 0 n))))
(define (string-append* . args) (apply string-append (apply list* args)))
(define (string-normalize-spaces s) (string-join (string-split s) " "))
(define (string-null? s) (= (string-length s) 0))
(define (string-concatenate l) (apply string-append l))
(define (string-reverse s) (list->string (reverse (string->list s))))
(define (string-take s n) (substring s 0 n))
(define (string-drop s n) (substring s n (string-length s)))
(define (string-take-right s n) (substring s (- (string-length s) n) (string-length s)))
(define (string-drop-right s n) (substring s 0 (- (string-length s) n)))
(define (string-pad s n [c #\space])
  ((lambda (len) (if (>= len n) (substring s (- len n) len) (string-append (make-string (- n len) c) s))) (string-length s)))
(define (string-pad-right s n [c #\space])
  ((lambda (len) (if (>= len n) (substring s 0 n) (string-append s (make-string (- n len) c)))) (string-length s)))
(define (string-trim-both s) (trim s))
(define (string-trim-right s) (trim-end s))
(define (string-trim-left s) (trim-start s))
(define (tusk-char-pred p) (if (char? p) (lambda (c) (char=? c p)) p))
(define (string-index s p) (list-index (tusk-char-pred p) (string->list s)))
(define (string-count s p) (count (tusk-char-pred p) (string->list s)))
(define (string-every p s) (every (tusk-char-pred p) (string->list s)))
(define (string-any p s) (any (tusk-char-pred p) (string->list s)))
(define (string-contains s part) (tusk-search s part 0))
(define (string-tokenize s) (string-split s))
(define (string-map f s) (list->string (map f (string->list s))))
(define (string-for-each f s) (for-each f (string->list s)))
(define (string->vector s) (list->vector (string->list s)))
(define (vector->string v) (list->string (vector->list v)))
(define (string-foldcase s) (string-downcase s))
(define (char-foldcase c) (char-downcase c))
(define (char-alphabetic? c) (if (char-upcase c) (not (char=? (char-upcase c) (char-downcase c))) #f))
(define (char-numeric? c) (char-digit? c))
(define (digit-value c) (if (char-digit? c) (- (char->integer c) 48) #f))

;; ---------------------------------------------------------------- vectors (racket/vector, R7RS)
(define (vector-map f v . more) (list->vector (apply map f (vector->list v) (map vector->list more))))
(define (vector-for-each f v . more) (apply for-each f (vector->list v) (map vector->list more)))
(define (vector-filter pred v) (list->vector (filter pred (vector->list v))))
(define (vector-filter-not pred v) (list->vector (filter-not pred (vector->list v))))
(define (vector-count pred v) (count pred (vector->list v)))
(define (vector-argmin f v) (argmin f (vector->list v)))
(define (vector-argmax f v) (argmax f (vector->list v)))
(define (vector-member x v) (list-index (lambda (y) (equal? x y)) (vector->list v)))
(define (vector-sort v less? #:key [key #f]) (list->vector (sort (vector->list v) less? #:key key)))
(define (vector-append . vs) (list->vector (apply append (map vector->list vs))))
(define (vector-take v n) (list->vector (list-take (vector->list v) n)))
(define (vector-drop v n) (list->vector (list-drop (vector->list v) n)))
(define (vector-split-at v n) (values (vector-take v n) (vector-drop v n)))
(define (vector-copy v [start 0] [end #f])
  (apply mutable-vector (list-take (list-drop (vector->list v) start) (- (if end end (vector-length v)) start))))
(define (vector-copy! to at from [start 0] [end #f])
  (for-each (lambda (x i) (vector-set! to (+ at i) x))
            (vector->list (vector-copy from start end))
            (range 0 (- (if end end (vector-length from)) start))))

;; ---------------------------------------------------------------- hashes (racket/hash)
(define (tusk-union h others combine combine/key)
  (foldl (lambda (other acc)
           (foldl (lambda (kv acc2)
                    ((lambda (k v)
                       (if (hash-contains? acc2 k)
                           (hash-insert acc2 k (if combine/key (combine/key k (hash-ref acc2 k) v)
                                                   (if combine (combine (hash-ref acc2 k) v) v)))
                           (hash-insert acc2 k v)))
                     (car kv) (cdr kv)))
                  acc (hash->list other)))
         (tusk-immutable h) others))
(define (hash-union h . args)
  (tusk-union h (tusk-kw-strip args) (tusk-kw-get args "#:combine" #f) (tusk-kw-get args "#:combine/key" #f)))
(define (hash-union! h . args)
  (set-box! (tusk-mutable! "hash-union!" h) (apply hash-union (unbox h) args)))
(define (tusk-intersect h others combine combine/key)
  (foldl (lambda (kv acc)
           ((lambda (k v)
              (if (every (lambda (o) (hash-contains? o k)) others)
                  (hash-insert acc k (foldl (lambda (o a) (if combine/key (combine/key k a (hash-ref o k)) (if combine (combine a (hash-ref o k)) (hash-ref o k)))) v others))
                  acc))
            (car kv) (cdr kv)))
         (hash) (hash->list h)))
(define (hash-intersect h . args)
  (tusk-intersect h (tusk-kw-strip args) (tusk-kw-get args "#:combine" #f) (tusk-kw-get args "#:combine/key" #f)))
(define (hash-filter-keys h pred) (foldl (lambda (kv acc) (if (pred (car kv)) (hash-insert acc (car kv) (cdr kv)) acc)) (hash) (hash->list h)))
(define (hash-filter-values h pred) (foldl (lambda (kv acc) (if (pred (cdr kv)) (hash-insert acc (car kv) (cdr kv)) acc)) (hash) (hash->list h)))
(define (hash-filter h pred) (foldl (lambda (kv acc) (if (pred (car kv) (cdr kv)) (hash-insert acc (car kv) (cdr kv)) acc)) (hash) (hash->list h)))
(define (hash-map/copy h f)
  (foldl (lambda (kv acc) (apply (lambda (k v) (hash-insert acc k v)) (tusk-values->list (f (car kv) (cdr kv))))) (hash) (hash->list h)))

;; ---------------------------------------------------------------- case-lambda
(define-syntax tusk-formals-arity
  (syntax-rules ()
    [(_ ()) (cons 0 #f)]
    [(_ (a . rest)) ((lambda (r) (cons (+ 1 (car r)) (cdr r))) (tusk-formals-arity rest))]
    [(_ rest) (cons 0 #t)]))
(define (tusk-case-lambda-apply args clauses)
  (if (null? clauses)
      (error "case-lambda: no clause takes" (length args) "argument(s)")
      ((lambda (arity) (if (if (cdr arity) (>= (length args) (car arity)) (= (length args) (car arity)))
                           (apply (cdr (car clauses)) args)
                           (tusk-case-lambda-apply args (cdr clauses))))
       (car (car clauses)))))
(define-syntax case-lambda
  (syntax-rules ()
    [(_ (formals body ...) ...)
     (lambda args (tusk-case-lambda-apply args (list (cons (tusk-formals-arity formals) (lambda formals body ...)) ...)))]))

;; ---------------------------------------------------------------- racket/format
(define (tusk-repeat pad n)
  (if (<= n 0) "" (substring (apply string-append (map (lambda (i) pad) (range 0 n))) 0 n)))
(define (tusk-pad text width align pad)
  ((lambda (missing)
     (if (<= missing 0)
         text
         (if (eq? align 'right)
             (string-append (tusk-repeat pad missing) text)
             (if (eq? align 'center)
                 (string-append (tusk-repeat pad (quotient missing 2)) text (tusk-repeat pad (- missing (quotient missing 2))))
                 (string-append text (tusk-repeat pad missing))))))
   (- width (string-length text))))
(define (tusk-fit text max-width limit-marker)
  (if (if max-width (> (string-length text) max-width) #f)
      (string-append (substring text 0 (max 0 (- max-width (string-length limit-marker)))) limit-marker)
      text))
(define (~a . args)
  ((lambda (vs sep width max-width min-width marker align pad lpad rpad)
     ((lambda (text)
        ((lambda (fitted)
           (tusk-pad fitted (if width width (if min-width min-width 0)) align
                     (if (eq? align 'right) (if lpad lpad pad) (if rpad rpad pad))))
         (tusk-fit text (if width width max-width) marker)))
      (string-join (map (lambda (v) (format "~a" v)) vs) sep)))
   (tusk-kw-strip args) (tusk-kw-get args "#:separator" "") (tusk-kw-get args "#:width" #f)
   (tusk-kw-get args "#:max-width" #f) (tusk-kw-get args "#:min-width" #f)
   (tusk-kw-get args "#:limit-marker" "") (tusk-kw-get args "#:align" 'left)
   (tusk-kw-get args "#:pad-string" " ") (tusk-kw-get args "#:left-pad-string" #f)
   (tusk-kw-get args "#:right-pad-string" #f)))
(define (~s . vs) (string-join (map (lambda (v) (format "~s" v)) vs) " "))
(define (~v . vs) (string-join (map (lambda (v) (format "~v" v)) vs) " "))
(define (~e . vs) (apply ~s vs))
(define (tusk-trim-zeros text)
  (if (string-contains? text ".")
      ((lambda (t) (if (string-suffix? t ".") (substring t 0 (- (string-length t) 1)) t))
       (trim-end-matches text "0"))
      text))
(define (tusk-decimal-trimmed n digits exact-digits?)
  ((lambda (text)
     (if exact-digits? text (tusk-trim-zeros text)))
   (tusk-decimal n digits)))
(define (~r n #:precision [precision 6] #:min-width [min-width 1] #:pad-string [pad " "] #:base [base 10] #:sign [sign #f])
  ((lambda (text) (tusk-pad text min-width 'right pad))
   (if (integer? n)
       (if (exact? n) (number->string n base) (tusk-decimal-trimmed n (if (pair? precision) (cadr precision) precision) (pair? precision)))
       (tusk-decimal-trimmed n (if (pair? precision) (cadr precision) precision) (pair? precision)))))

;; ---------------------------------------------------------------- match
;; racket/match's runtime half. tusk rewrites match, match*, match-define,
;; match-let, match-let* and match-lambda (src/sandbox/matching.rs) into
;; (tusk-match 'pattern value procs): the pattern as data (its names are the
;; variables, tusk-wild is _, tusk-ellipsis follows a repeated pattern,
;; (tusk-lit d) a quoted datum, (tusk-key i) and the first argument of ? and
;; app index procs, the expressions the program evaluated). It gives a hash
;; from each variable to its value, or #f.
(define tusk-match-missing (string->symbol "#<missing>"))
(define (tusk-match-get b name) (hash-ref b name #f))
(define (tusk-match-fail v)
  (error (string-append "match: no matching clause for " (~s v)
                        "; add a last clause [_ …] for every other value")))
(define (tusk-match-vars p acc)
  (cond [(symbol? p) (if (or (eq? p 'tusk-wild) (eq? p 'tusk-ellipsis)) acc (cons p acc))]
        [(pair? p)
         (cond [(eq? (car p) 'tusk-lit) acc]
               [(or (eq? (car p) '?) (eq? (car p) 'app)) (foldl tusk-match-vars acc (cddr p))]
               [(eq? (car p) 'hash-table)
                (foldl (lambda (kp acc) (tusk-match-vars (cadr kp) acc)) acc (cdr p))]
               [else (foldl tusk-match-vars acc (cdr p))])]
        [else acc]))
(define (tusk-match-bind b name v)
  (cond [(eq? name 'tusk-wild) b]
        [(hash-contains? b name) (if (equal? (hash-ref b name) v) b #f)]
        [else (hash-set b name v)]))
(define (tusk-match-key k procs)
  (cond [(and (pair? k) (eq? (car k) 'tusk-lit)) (cadr k)]
        [(and (pair? k) (eq? (car k) 'tusk-key)) (list-ref procs (cadr k))]
        [else k]))
(define (tusk-match-lookup h k)
  (let ([v (hash-ref h k tusk-match-missing)])
    (if (and (eq? v tusk-match-missing) (symbol? k))
        (hash-ref h (symbol->string k) tusk-match-missing)
        v)))
;; One function: its parts call each other.
(define (tusk-match pattern value procs)
  (define (m-one p v b)
    (cond
      [(not b) #f]
      [(symbol? p) (tusk-match-bind b p v)]
      [(pair? p)
       (let ([head (car p)] [args (cdr p)])
         (cond
           [(eq? head 'tusk-lit) (and (equal? (car args) v) b)]
           [(eq? head 'list) (and (list? v) (m-seq args v b))]
           [(eq? head 'vector) (and (vector? v) (m-seq args (vector->list v) b))]
           [(eq? head 'list-rest) (m-rest args v b)]
           [(eq? head 'and) (m-all args v b)]
           [(eq? head 'or) (m-any args v b)]
           [(eq? head 'not) (and (not (m-one (car args) v b)) b)]
           [(eq? head '?) (and ((list-ref procs (car args)) v) (m-all (cdr args) v b))]
           [(eq? head 'app) (m-all (cdr args) ((list-ref procs (car args)) v) b)]
           [(eq? head 'hash-table) (and (hash? v) (m-entries args v b))]
           [else #f]))]
      [else (and (equal? p v) b)]))
  (define (m-all ps v b)
    (cond [(not b) #f] [(null? ps) b] [else (m-all (cdr ps) v (m-one (car ps) v b))]))
  (define (m-any ps v b)
    (if (null? ps) #f (or (m-one (car ps) v b) (m-any (cdr ps) v b))))
  (define (m-many p vs b)
    (let loop ([vs vs] [found '()])
      (cond [(null? vs)
             (foldl (lambda (name b)
                      (and b (tusk-match-bind b name (map (lambda (h) (hash-ref h name #f)) (reverse found)))))
                    b (reverse (tusk-match-vars p '())))]
            [else (let ([h (m-one p (car vs) (hash))])
                    (and h (loop (cdr vs) (cons h found))))])))
  (define (m-seq ps vs b)
    (cond [(not b) #f]
          [(null? ps) (and (null? vs) b)]
          [(and (pair? (cdr ps)) (eq? (cadr ps) 'tusk-ellipsis))
           (let ([n (- (length vs) (length (cddr ps)))])
             (and (>= n 0) (m-seq (cddr ps) (drop vs n) (m-many (car ps) (take vs n) b))))]
          [(pair? vs) (m-seq (cdr ps) (cdr vs) (m-one (car ps) (car vs) b))]
          [else #f]))
  (define (m-rest ps v b)
    (cond [(not b) #f]
          [(null? (cdr ps)) (m-one (car ps) v b)]
          [(pair? v) (m-rest (cdr ps) (cdr v) (m-one (car ps) (car v) b))]
          [else #f]))
  (define (m-entries es h b)
    (cond [(not b) #f]
          [(null? es) b]
          [else
           (let ([v (tusk-match-lookup h (tusk-match-key (car (car es)) procs))])
             (and (not (eq? v tusk-match-missing))
                  (m-entries (cdr es) h (m-one (cadr (car es)) v b))))]))
  (m-one pattern value (hash)))
