fn main() {
    // A reader that goes away (`tusk issue list | head -1`) ends the process
    // quietly, as it does any Unix filter, instead of a panic on EPIPE.
    // SAFETY: restoring the default disposition of one signal at start-up.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        // A file-size limit (RLIMIT_FSIZE) is a write's EFBIG, which the
        // logs refuse a call on, not a signal that kills the host mid-row.
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let code = tusk::cli::run();
    // Every run this process wrote has its footer: its writer markers go
    // (one left by a killed process makes recovery close its runs).
    tusk::logs::writers::release_all();
    std::process::exit(code);
}
