//! A call's change and its rows as one transaction (issue 61): while a
//! [`Unit`] is open on a thread, every statement that thread sends to its
//! database goes to the unit's connection, inside one transaction (each
//! store mutation a savepoint of it, [`super::PgStore::transaction`]); the
//! host commits it once the call's trajectory row and effect row are
//! written, so the mutation and its rows commit together or not at all. A
//! unit dropped without [`Unit::commit`] (a panic, an early return) rolls
//! everything back.

use super::{Conn, PgError, PgStore};
use postgres::Client;
use std::cell::RefCell;

/// How a transaction body ends.
#[derive(Debug)]
pub enum End<T> {
    Commit(T),
    /// Nothing it did is kept (a mutation that found it must be decided
    /// another way).
    Rollback(T),
}

struct Open {
    /// The database's shown URL: the unit serves every store value of it.
    key: String,
    /// Taken from the pool and `BEGIN`-ed at the first statement.
    conn: Option<Conn>,
    /// A statement failed: the transaction is aborted, the commit fails.
    failed: Option<PgError>,
}

thread_local! {
    static OPEN: RefCell<Option<Open>> = const { RefCell::new(None) };
}

/// An open unit on this thread (see the module docs); its state is the
/// thread's (`OPEN`), so that every store value of the database finds it.
#[derive(Debug)]
pub struct Unit {
    _open: (),
}

impl Unit {
    /// Opens a unit on `pg`'s database for this thread (no connection is
    /// taken until the first statement). `None` when one is already open:
    /// the outer unit keeps the whole.
    pub fn begin(pg: &PgStore) -> Option<Unit> {
        OPEN.with(|open| {
            let mut open = open.borrow_mut();
            if open.is_some() {
                return None;
            }
            *open = Some(Open {
                key: pg.shown.clone(),
                conn: None,
                failed: None,
            });
            Some(Unit { _open: () })
        })
    }

    /// Commits everything the unit's statements did. Without a statement
    /// there is nothing to commit.
    ///
    /// # Errors
    ///
    /// The first statement error inside the unit, or the commit's own:
    /// then nothing the unit did is kept.
    pub fn commit(self) -> Result<(), PgError> {
        let open = OPEN.with(|o| o.borrow_mut().take());
        std::mem::forget(self);
        let Some(mut open) = open else {
            return Ok(());
        };
        let Some(conn) = open.conn.as_mut() else {
            return Ok(());
        };
        let client = conn.client.as_mut().expect("held until dropped");
        if let Some(e) = open.failed.take() {
            let _ = client.batch_execute("ROLLBACK");
            return Err(e);
        }
        crate::fault::point("unit.before_commit");
        client
            .batch_execute("COMMIT")
            .map_err(|e| error_for(&open.key, e))
    }
}

impl Drop for Unit {
    fn drop(&mut self) {
        let open = OPEN.with(|o| o.borrow_mut().take());
        if let Some(Open {
            conn: Some(mut conn),
            ..
        }) = open
        {
            if let Some(client) = conn.client.as_mut() {
                let _ = client.batch_execute("ROLLBACK");
            }
        }
    }
}

/// Whether a unit on `pg`'s database is open on this thread.
pub(super) fn active_for(pg: &PgStore) -> bool {
    OPEN.with(|o| o.borrow().as_ref().is_some_and(|open| open.key == pg.shown))
}

/// Marks the open unit failed: its commit will roll back and say why.
pub(super) fn poison(e: PgError) {
    OPEN.with(|o| {
        if let Some(open) = o.borrow_mut().as_mut() {
            open.failed.get_or_insert(e);
        }
    });
}

/// Runs `f` on the open unit's connection (opened and begun on first use).
/// With `errors_abort`, an error of `f` is remembered: a statement that
/// failed outside a savepoint aborted the unit's transaction (PostgreSQL
/// would answer its COMMIT with a silent ROLLBACK).
pub(super) fn run<T, E: From<PgError>>(
    pg: &PgStore,
    errors_abort: bool,
    f: impl FnOnce(&mut Client) -> Result<T, E>,
) -> Result<T, E> {
    let taken = OPEN.with(|o| o.borrow_mut().as_mut().and_then(|open| open.conn.take()));
    let mut conn = match taken {
        Some(conn) => conn,
        None => {
            let mut conn = pg.checkout(true)?;
            let client = conn.client.as_mut().expect("held until dropped");
            client.batch_execute("BEGIN").map_err(|e| pg.error(e))?;
            conn
        }
    };
    let client = conn.client.as_mut().expect("held until dropped");
    let out = f(client);
    let closed = client.is_closed();
    OPEN.with(|o| {
        if let Some(open) = o.borrow_mut().as_mut() {
            if (closed || (errors_abort && out.is_err())) && open.failed.is_none() {
                open.failed = Some(PgError::Unavailable {
                    url: open.key.clone(),
                    reason: if closed {
                        "the connection closed inside the call's transaction".into()
                    } else {
                        "a statement inside the call's transaction failed".into()
                    },
                });
            }
            open.conn = Some(conn);
        }
    });
    out
}

fn error_for(key: &str, e: postgres::Error) -> PgError {
    PgError::Unavailable {
        url: key.to_string(),
        reason: e.to_string(),
    }
}
