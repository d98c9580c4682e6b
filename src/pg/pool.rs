//! A bounded pool of connections to one database (issue 58): a server's
//! calls each take a connection of their own, so mutations of different
//! issues run side by side instead of queueing behind one shared client.
//!
//! Hand-written rather than `r2d2`: r2d2's checkout error carries only a
//! string, and a store's errors must keep their classes (an unreachable
//! server, a failed password, a missing database: `PgStore::error`).
//!
//! Bounds: at most [`PoolConfig::size`] connections are open at once; a
//! caller waits at most [`PoolConfig::wait`] for one; a connection idle for
//! longer than [`RECHECK_IDLE`] is pinged before reuse (a database restarted
//! meanwhile closed it); a closed or panicked-over connection is dropped,
//! never returned.

use postgres::Client;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a connection may sit idle before a checkout pings it.
const RECHECK_IDLE: Duration = Duration::from_secs(2);

/// How long a ping may take before the connection counts as dead.
const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// The pool's bounds.
#[derive(Clone, Copy, Debug)]
pub(super) struct PoolConfig {
    pub size: usize,
    pub wait: Duration,
}

/// The default size: enough for a server's worker threads on a small
/// machine, few enough that a fleet of servers stays far below
/// PostgreSQL's default `max_connections` (100).
pub(super) const DEFAULT_SIZE: usize = 8;

/// The environment variable that sizes the pool (1 to [`MAX_SIZE`]).
pub const POOL_ENV: &str = "TUSK_PG_POOL";

/// The largest pool `TUSK_PG_POOL` may ask for.
pub(super) const MAX_SIZE: usize = 256;

/// How long a call waits for a free connection before it is refused.
pub(super) const DEFAULT_WAIT: Duration = Duration::from_secs(30);

impl PoolConfig {
    /// The pool's size from [`POOL_ENV`], else [`DEFAULT_SIZE`].
    ///
    /// # Errors
    ///
    /// A value that is not a number from 1 to [`MAX_SIZE`] (configuration
    /// fails closed).
    pub(super) fn from_env() -> Result<Self, String> {
        let size = match std::env::var(POOL_ENV) {
            Err(_) => DEFAULT_SIZE,
            Ok(v) => match v.trim().parse::<usize>() {
                Ok(n) if (1..=MAX_SIZE).contains(&n) => n,
                _ => {
                    return Err(format!(
                        "{POOL_ENV}={v:?}: expected a number of connections from 1 to {MAX_SIZE}"
                    ))
                }
            },
        };
        Ok(PoolConfig {
            size,
            wait: DEFAULT_WAIT,
        })
    }
}

struct Idle {
    client: Client,
    since: Instant,
}

struct State {
    idle: Vec<Idle>,
    /// Connections open, idle or checked out.
    open: usize,
}

pub(super) struct Pool {
    config: PoolConfig,
    state: Mutex<State>,
    freed: Condvar,
}

/// What a checkout found: a connection to reuse, or room to open one.
pub(super) enum Slot {
    Reused(Box<Client>),
    Open,
}

impl Pool {
    pub(super) fn new(config: PoolConfig) -> Self {
        Pool {
            config,
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
            }),
            freed: Condvar::new(),
        }
    }

    pub(super) fn size(&self) -> usize {
        self.config.size
    }

    /// A live idle connection, or the right to open one (the caller then
    /// calls [`Pool::opened`] or [`Pool::failed`]); `None` when every
    /// connection stayed busy for the pool's wait.
    pub(super) fn checkout(&self) -> Option<Slot> {
        let deadline = Instant::now() + self.config.wait;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            while let Some(idle) = state.idle.pop() {
                let mut client = idle.client;
                let alive = !client.is_closed()
                    && (idle.since.elapsed() < RECHECK_IDLE || {
                        // Pinging without the pool's lock held.
                        drop(state);
                        let ok = client.is_valid(PING_TIMEOUT).is_ok();
                        state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                        ok
                    });
                if alive {
                    return Some(Slot::Reused(Box::new(client)));
                }
                state.open -= 1;
            }
            if state.open < self.config.size {
                state.open += 1;
                return Some(Slot::Open);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            state = self
                .freed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// A connection opened for a [`Slot::Open`] could not be made.
    pub(super) fn failed(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.open -= 1;
        self.freed.notify_one();
    }

    /// A checked-out connection comes back; a closed one is dropped (its
    /// place is free for a new one).
    pub(super) fn checkin(&self, client: Client) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if client.is_closed() {
            state.open -= 1;
        } else {
            state.idle.push(Idle {
                client,
                since: Instant::now(),
            });
        }
        self.freed.notify_one();
    }

    /// Every idle connection is closed (a restarted database closed them;
    /// the next checkouts open new ones).
    pub(super) fn drain_idle(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let n = state.idle.len();
        state.idle.clear();
        state.open -= n;
        self.freed.notify_all();
    }
}
