//! `tusk repl`: the host of `tusk eval`, one form at a time (host-api §8).
//!
//! The terminal loop lives in [`crate::cli::repl`]; this module holds what it
//! is made of, each testable without a terminal: the form splitter
//! ([`crate::sandbox::forms`]), completion ([`complete`]), the compact result text
//! ([`format`]) and the session itself ([`session`]).

pub mod complete;
pub mod debug;
pub mod format;
pub mod session;

pub use session::{
    help_report, new_session_id, Command, CommandError, Report, Session, SetupError,
};

use std::ffi::OsString;
use std::path::PathBuf;

/// Where the history goes: `$XDG_STATE_HOME/tusk/repl_history`, else
/// `$HOME/.local/state/tusk/repl_history`. The XDG spec ignores a relative
/// `XDG_STATE_HOME`, and so does this; `None` when neither place is known.
pub fn history_path(xdg_state_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let state = xdg_state_home
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            home.map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".local").join("state"))
        })?;
    Some(state.join("tusk").join("repl_history"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_goes_under_xdg_state_home_or_home() {
        let p = |s: &str| Some(OsString::from(s));
        assert_eq!(
            history_path(p("/x/state"), p("/home/u")),
            Some(PathBuf::from("/x/state/tusk/repl_history"))
        );
        assert_eq!(
            history_path(p("relative"), p("/home/u")),
            Some(PathBuf::from("/home/u/.local/state/tusk/repl_history"))
        );
        assert_eq!(
            history_path(None, p("/home/u")),
            Some(PathBuf::from("/home/u/.local/state/tusk/repl_history"))
        );
        assert_eq!(history_path(None, None), None);
    }
}
