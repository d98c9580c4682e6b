//! The wire between the host and a worker process: frames of a 4-byte
//! little-endian length and a JSON body, over a stream socket pair. Messages
//! are externally tagged (`{"reply": {…}}`): an internally tagged enum would
//! make serde buffer every envelope before decoding it.
//!
//! The worker is untrusted (it runs model-written code), so the host reads
//! its frames with a size cap and a deadline, and treats anything it cannot
//! parse as the worker's death. The worker side is blocking and single-threaded.

use super::convert::ConvertError;
use super::limits::Limits;
use super::FailureClass;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::time::Instant;

/// Messages the host sends a worker. The host sends envelopes as JSON
/// values; the worker reads them straight into Scheme values
/// ([`convert::SteelJson`](super::convert::SteelJson)), with no JSON tree
/// in between.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) enum ToWorker<E = Value> {
    /// First message: what to bind and how to confine itself. The action
    /// catalogue is not part of it: most programs never call
    /// `(host-describe)`, and sending and parsing the ~70 KB of declarations
    /// per worker cost a cold run about a millisecond. The worker asks for
    /// it ([`FromWorker::Describe`]) the first time a program does.
    #[serde(rename_all = "camelCase")]
    Setup {
        action_ids: Vec<String>,
        /// Actions the profile withholds (mutations under read-only): naming
        /// one says so instead of "unbound identifier".
        withheld: Vec<String>,
        /// Actions the run's `actions` list leaves out: naming one says so.
        #[serde(default)]
        narrowed: Vec<String>,
        /// Why a narrowed action is left out, in the caller's terms.
        #[serde(default)]
        reasons: Vec<(String, super::FailureClass, String)>,
        limits: Limits,
        /// A session worker runs many programs (no CPU-time rlimit per program).
        session: bool,
        /// Run the warm-up before saying ready (a spare made ahead of need).
        #[serde(default)]
        warm: bool,
    },
    /// Run one program (in the worker's engine: definitions persist).
    #[serde(rename_all = "camelCase")]
    Run { program: String, limits: Limits },
    /// The answer to the worker's pending host call; `stop` ends the run at
    /// the VM's next instruction.
    #[serde(rename_all = "camelCase")]
    Reply { envelope: E, stop: bool },
    /// The answer to [`FromWorker::Describe`]: the declarations of the bound
    /// actions, as JSON text (an object keyed by id).
    Catalogue(String),
}

/// A run's error as the worker reports it.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireError {
    pub class: FailureClass,
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// Messages a worker sends the host.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) enum FromWorker {
    /// Confined and bound; waiting for a program.
    Ready,
    /// A host call; `output` is the text displayed since the last message.
    #[serde(rename_all = "camelCase")]
    Call {
        action: String,
        args: Option<Value>,
        args_error: Option<ConvertError>,
        output: String,
        /// The 1-based line and column in the program where the call was
        /// made (none when no frame of the program's own text made it).
        #[serde(default)]
        at: Option<(usize, usize)>,
    },
    /// The run's end.
    #[serde(rename_all = "camelCase")]
    Done {
        value: Value,
        error: Option<WireError>,
        output: String,
        output_truncated: bool,
        /// The call ids whose envelopes the program examined
        /// ([`super::examined`]).
        examined: Vec<String>,
        /// The worker's allocator stopped the program for memory.
        memory: bool,
        /// A fault inside Steel left the engine unusable: do not run again.
        poisoned: bool,
    },
    /// `(host-describe)` was called: send the catalogue (once per worker;
    /// the worker keeps it).
    Describe,
    /// Last words before the worker exits on its own (written from a signal
    /// handler or the allocator, so pre-serialized).
    Fatal { reason: String },
}

/// Encodes one frame.
pub(crate) fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    let mut frame = vec![0u8; 4];
    serde_json::to_writer(&mut frame, message).expect("messages serialize");
    let len = (frame.len() - 4) as u32;
    frame[..4].copy_from_slice(&len.to_le_bytes());
    frame
}

/// Writes all of `bytes` to a blocking descriptor (worker side).
pub(crate) fn write_all_blocking(fd: RawFd, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: writing from a valid slice to a descriptor we own.
        let n = unsafe { libc::send(fd, bytes.as_ptr().cast(), bytes.len(), libc::MSG_NOSIGNAL) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// How long a side waiting for the other spins before it sleeps. A host call
/// is a round trip; sleeping and being woken costs two context switches
/// (tens of microseconds each in a VM), so a short spin first pays.
pub(crate) const SPIN: std::time::Duration = std::time::Duration::from_micros(60);

/// Whether a side waiting for the other spins the whole [`SPIN`] first. It
/// does while the other side last answered within it. When the machine is
/// loaded the other side is often not running, and spinning then only keeps
/// it off the CPU (host calls fell about threefold under a CPU hog), so after
/// a wait longer than [`SPIN`] a side only probes briefly and then sleeps,
/// until an answer within [`SPIN`] shows spinning pays again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spin {
    prompt: bool,
}

impl Spin {
    /// The probe of a side whose last wait was long.
    const PROBE: std::time::Duration = std::time::Duration::from_micros(10);

    pub(crate) const fn new() -> Self {
        Self { prompt: true }
    }

    /// When a wait begun at `started` stops spinning and sleeps.
    pub(crate) fn until(&self, started: Instant) -> Instant {
        started + if self.prompt { SPIN } else { Self::PROBE }
    }

    /// Learns from a wait for the other side that took `took`.
    pub(crate) fn waited(&mut self, took: std::time::Duration) {
        self.prompt = took <= SPIN;
    }
}

/// Received bytes not yet consumed (worker side, single-threaded).
struct Inbox {
    buf: Vec<u8>,
    start: usize,
    spin: Spin,
}

thread_local! {
    static INBOX: std::cell::RefCell<Inbox> = const {
        std::cell::RefCell::new(Inbox { buf: Vec::new(), start: 0, spin: Spin::new() })
    };
}

/// Parses the next complete frame (worker side): from what is buffered,
/// else from reads of whatever has arrived (one system call per message
/// when it arrives whole), spinning briefly before blocking.
fn next_frame<T>(fd: RawFd, parse: impl FnOnce(&[u8]) -> T) -> std::io::Result<T> {
    INBOX.with(|inbox| {
        let mut inbox = inbox.borrow_mut();
        let started = Instant::now();
        let spin_until = inbox.spin.until(started);
        let mut waited = false;
        loop {
            let start = inbox.start;
            let pending = &inbox.buf[start..];
            if pending.len() >= 4 {
                let len = u32::from_le_bytes(pending[..4].try_into().expect("4 bytes")) as usize;
                if pending.len() >= 4 + len {
                    // The wait ended when the frame was whole, not after
                    // a large envelope was read into Scheme values.
                    let took = waited.then(|| started.elapsed());
                    let parsed = parse(&pending[4..4 + len]);
                    if let Some(took) = took {
                        inbox.spin.waited(took);
                    }
                    inbox.start += 4 + len;
                    if inbox.start == inbox.buf.len() {
                        inbox.buf.clear();
                        inbox.start = 0;
                    }
                    return Ok(parsed);
                }
            }
            let flags = if Instant::now() < spin_until {
                libc::MSG_DONTWAIT
            } else {
                0
            };
            inbox.buf.reserve(16 * 1024);
            let filled = inbox.buf.len();
            let room = inbox.buf.capacity() - filled;
            // SAFETY: reading into the vector's spare capacity, then
            // counting only the bytes the kernel wrote.
            let n =
                unsafe { libc::recv(fd, inbox.buf.as_mut_ptr().add(filled).cast(), room, flags) };
            if n > 0 {
                // SAFETY: the kernel initialised `n` more bytes.
                unsafe { inbox.buf.set_len(filled + n as usize) };
                continue;
            }
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            waited = true;
            let e = std::io::Error::last_os_error();
            if !matches!(
                e.kind(),
                std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock
            ) {
                return Err(e);
            }
            std::hint::spin_loop();
        }
    })
}

/// Reads one message from a blocking descriptor (worker side; the host is
/// trusted, so no cap beyond what fits in memory).
pub(crate) fn read_blocking(fd: RawFd) -> std::io::Result<ToWorker<super::convert::SteelJson>> {
    read_blocking_sized(fd).map(|(message, _)| message)
}

/// [`read_blocking`], with the size of the message's frame.
pub(crate) fn read_blocking_sized(
    fd: RawFd,
) -> std::io::Result<(ToWorker<super::convert::SteelJson>, usize)> {
    let (parsed, len) = next_frame(fd, |body| (serde_json::from_slice(body), body.len()))?;
    Ok((parsed.map_err(std::io::Error::other)?, len))
}

/// Why the host could not get a message from a worker.
#[derive(Debug)]
pub(crate) enum RecvError {
    /// Nothing complete before the deadline.
    TimedOut,
    /// The worker closed its end (exited or died).
    Closed,
    /// The worker sent something that is not a message, or too large a one.
    Garbled(String),
}

/// The host's end of a worker channel: non-blocking, every wait bounded by a
/// deadline.
pub(crate) struct HostChannel {
    fd: std::os::fd::OwnedFd,
    buf: Vec<u8>,
    /// Where a read lands before it is appended to `buf`.
    chunk: Box<[u8]>,
    max_frame: usize,
    spin: Spin,
}

impl HostChannel {
    pub fn new(fd: std::os::fd::OwnedFd, max_frame: usize) -> std::io::Result<Self> {
        // SAFETY: F_GETFL/F_SETFL on a descriptor we own.
        unsafe {
            let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
            if flags < 0 || libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(Self {
            fd,
            buf: Vec::new(),
            chunk: vec![0u8; 64 * 1024].into_boxed_slice(),
            max_frame,
            spin: Spin::new(),
        })
    }

    pub fn set_max_frame(&mut self, max_frame: usize) {
        self.max_frame = max_frame;
    }

    fn fd(&self) -> BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.fd.as_fd()
    }

    /// Waits until the descriptor is ready for `events` or `deadline` passes.
    fn wait(&self, events: i16, deadline: Instant) -> bool {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = left.as_millis().min(i32::MAX as u128) as i32;
            let mut pfd = libc::pollfd {
                fd: self.fd().as_raw_fd(),
                events,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut pfd, 1, ms) };
            if n > 0 {
                return true;
            }
            if n == 0 && Instant::now() >= deadline {
                return false;
            }
            if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return true;
            }
        }
    }

    /// Sends one message; false when the worker is gone or would not take it
    /// before `deadline`.
    pub fn send<E: Serialize>(&self, message: &ToWorker<E>, deadline: Instant) -> bool {
        let frame = encode(message);
        let mut bytes = &frame[..];
        while !bytes.is_empty() {
            // SAFETY: writing from a valid slice to a descriptor we own.
            let n = unsafe {
                libc::send(
                    self.fd().as_raw_fd(),
                    bytes.as_ptr().cast(),
                    bytes.len(),
                    libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
                )
            };
            if n >= 0 {
                bytes = &bytes[n as usize..];
                continue;
            }
            match std::io::Error::last_os_error().kind() {
                std::io::ErrorKind::Interrupted => {}
                std::io::ErrorKind::WouldBlock => {
                    if !self.wait(libc::POLLOUT, deadline) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        true
    }

    /// The next message, or why there is none before `deadline`.
    pub fn recv(&mut self, deadline: Instant) -> Result<FromWorker, RecvError> {
        let started = Instant::now();
        let spin_until = self.spin.until(started);
        let mut waited = false;
        loop {
            if self.buf.len() >= 4 {
                let len = u32::from_le_bytes(self.buf[..4].try_into().expect("4 bytes")) as usize;
                if len > self.max_frame {
                    return Err(RecvError::Garbled(format!(
                        "sent a {len}-byte message, over the {}-byte cap",
                        self.max_frame
                    )));
                }
                if self.buf.len() >= 4 + len {
                    if waited {
                        self.spin.waited(started.elapsed());
                    }
                    let parsed = serde_json::from_slice::<FromWorker>(&self.buf[4..4 + len]);
                    self.buf.drain(..4 + len);
                    return parsed
                        .map_err(|e| RecvError::Garbled(format!("sent a malformed message: {e}")));
                }
            }
            // SAFETY: reading into a valid buffer from a descriptor we own.
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    self.chunk.as_mut_ptr().cast(),
                    self.chunk.len(),
                )
            };
            if n > 0 {
                self.buf.extend_from_slice(&self.chunk[..n as usize]);
                continue;
            }
            if n == 0 {
                return Err(RecvError::Closed);
            }
            match std::io::Error::last_os_error().kind() {
                std::io::ErrorKind::Interrupted => {}
                std::io::ErrorKind::WouldBlock => {
                    waited = true;
                    if Instant::now() < spin_until.min(deadline) {
                        std::hint::spin_loop();
                    } else if !self.wait(libc::POLLIN, deadline) {
                        return Err(RecvError::TimedOut);
                    }
                }
                _ => return Err(RecvError::Closed),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_side_spins_while_the_other_answers_within_the_spin() {
        let t = Instant::now();
        let mut spin = Spin::new();
        assert_eq!(spin.until(t), t + SPIN, "a new channel spins");
        spin.waited(Duration::from_micros(20));
        assert_eq!(spin.until(t), t + SPIN);
        spin.waited(SPIN + Duration::from_micros(1));
        assert_eq!(
            spin.until(t),
            t + Spin::PROBE,
            "a late answer: probe, then sleep"
        );
        spin.waited(Duration::from_millis(5));
        assert_eq!(spin.until(t), t + Spin::PROBE);
        spin.waited(SPIN);
        assert_eq!(spin.until(t), t + SPIN, "a prompt answer: spin again");
    }
}
