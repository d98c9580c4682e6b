//! The capabilities the `steel.sandbox.v1` profile does not have, by name.
//!
//! None of these names is bound in the sandbox engine (the allowlist in
//! [`super::primitives`] is the only source of bindings), so using one fails to
//! compile. This table turns that failure into `scheme_eval.effect_denied` with a
//! message that names the capability and points at host functions, instead of a
//! bare "free identifier".

/// What kind of capability a denied name would have reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    FileSystem,
    Process,
    Environment,
    Network,
    ModuleLoading,
    DynamicLibrary,
    Threads,
    Clock,
    Randomness,
    Ports,
    Reflection,
}

impl Capability {
    fn describe(self) -> &'static str {
        match self {
            Capability::FileSystem => "file-system access",
            Capability::Process => "process spawning",
            Capability::Environment => "environment variables",
            Capability::Network => "network access",
            Capability::ModuleLoading => "loading code from disk or modules",
            Capability::DynamicLibrary => "dynamic libraries",
            Capability::Threads => "native threads",
            Capability::Clock => "the clock",
            Capability::Randomness => "randomness",
            Capability::Ports => "I/O ports",
            Capability::Reflection => "evaluator internals",
        }
    }
}

/// Names handled by Steel's *compiler* before name resolution: these must be
/// refused on the token stream, because `(require "/etc/passwd")` reads the file
/// at compile time and leaks its first line through the error.
pub const COMPILE_TIME_FORMS: &[&str] = &[
    "require",
    "require-builtin",
    "#%require-dylib",
    "provide",
    "module",
    "include",
    "load",
    "load-expanded",
    "eval",
    "eval!",
    "eval-string",
    "expand!",
    "emit-expanded",
    "read",
    "read!",
];

const TABLE: &[(Capability, &[&str])] = &[
    (
        Capability::FileSystem,
        &[
            "open-input-file",
            "open-output-file",
            "read-to-string",
            "read-dir",
            "read-dir-iter",
            "delete-file!",
            "delete-directory!",
            "create-directory!",
            "copy-directory-recursively!",
            "rename-file-or-directory!",
            "path-exists?",
            "is-file?",
            "is-dir?",
            "file-name",
            "canonicalize-path",
            "current-directory",
            "set-current-dir!",
            "change-current-directory!",
            "file-metadata",
            "glob",
            "path->extension",
            "parent-name",
            "with-current-dir",
            "write-file",
            "read-file",
            "file-exists?",
            "directory-exists?",
            "delete-file",
        ],
    ),
    (
        Capability::Process,
        &[
            "spawn-process",
            "command",
            "wait",
            "wait->stdout",
            "kill",
            "process-wait",
            "subprocess-kill",
            "child-stdout",
            "child-stderr",
            "child-stdin",
            "which",
            "run!",
            "with-stdout-piped",
            "with-stderr-piped",
            "with-stdin-piped",
            "set-piped-stdout!",
            "system",
            "exit",
            "process-exit",
        ],
    ),
    (
        Capability::Environment,
        &[
            "env-var",
            "set-env-var!",
            "maybe-get-env-var",
            "with-env-var",
            "without-env-var",
            "with-cleared-env-vars",
            "command-line",
            "std::env::args",
            "steel-home-location",
            "getenv",
            "get-environment-variable",
            "current-os!",
            "target-arch!",
        ],
    ),
    (
        Capability::Network,
        &[
            "tcp-connect",
            "tcp-listen",
            "tcp-accept",
            "http-get",
            "http-post",
            "http-request",
            "request",
            "client/get",
            "client/post",
            "udp-bind",
            "resolve-host",
        ],
    ),
    (Capability::ModuleLoading, COMPILE_TIME_FORMS),
    (
        Capability::DynamicLibrary,
        &["#%get-dylib", "#%build-dylib", "dylib", "load-dylib", "ffi"],
    ),
    (
        Capability::Threads,
        &[
            "spawn-native-thread",
            "spawn-thread!",
            "thread-join!",
            "mutex",
            "lock-acquire!",
            "channels/new",
            "thread/available-parallelism",
            "thread-suspend",
            "thread-resume",
            "thread-interrupt",
            "make-tls",
            "get-tls",
            "set-tls!",
            "block-on",
            "time/sleep-ms",
        ],
    ),
    (
        Capability::Clock,
        &[
            "current-milliseconds",
            "current-inexact-milliseconds",
            "current-second",
            "instant/now",
            "system-time/now",
            "local-time/now!",
            "naive-current-date-local",
            "current-time",
        ],
    ),
    (
        Capability::Randomness,
        &[
            "random",
            "random-int",
            "rng->gen-usize",
            "rng->gen-range",
            "rng/new",
        ],
    ),
    (
        Capability::Ports,
        &[
            "stdout",
            "stdin",
            "open-output-string",
            "open-input-string",
            "open-output-bytevector",
            "read-line",
            "read-line-from-port",
            "write-line!",
            "flush-output-port",
            "with-stdout",
            "with-stderr",
            "with-stdin",
            "read-char",
            "write-string",
            "write-char",
        ],
    ),
    (
        Capability::Reflection,
        &[
            "%module-get%",
            "##__module-get",
            "%#maybe-module-get",
            "load-from-module!",
            "#%module",
            "#%module-add",
            "%list-modules!",
            "Engine::new",
            "Engine::clone",
            "Engine::add-module",
            "Engine::modules->list",
            "Engine::raise_error",
            "debug-globals",
            "#%gc-collect",
            "call-with-current-continuation",
            "dump-profiler",
            "make-callstack-profiler",
        ],
    ),
];

/// The capability a name would reach, if it is a known denied name.
pub fn capability_of(name: &str) -> Option<Capability> {
    TABLE
        .iter()
        .find(|(_, names)| names.contains(&name))
        .map(|(cap, _)| *cap)
        .or_else(|| is_internal(name).then_some(Capability::Reflection))
}

/// Evaluator-internal names (`#%…`, `%…`, and the prelude's own `tusk-…`
/// helpers, which skip its checks): never written by a program.
pub fn is_internal(name: &str) -> bool {
    name.starts_with("#%") || name.starts_with('%') || name.starts_with("tusk-")
}

/// The message for a denied name.
pub fn denial_message(name: &str, cap: Capability) -> String {
    format!(
        "`{name}` is not available: the steel.sandbox.v1 profile has no {}. \
         Programs reach the world only through host functions, e.g. (issue.ready) or \
         (host-call \"issue.show\" (hash \"id\" \"bd-1\")); (host-actions) lists them",
        cap.describe()
    )
}
