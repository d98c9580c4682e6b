//! `tusk mcp` over stdio, behind a line filter that the MCP SDK's own
//! transport lacks:
//!
//! - every line the server cannot take gets a JSON-RPC error, never silence:
//!   not JSON, nested too deeply or an invalid escape (`-32700`), valid JSON
//!   that is not an MCP message or a line over [`MAX_LINE`] (`-32600`), with
//!   the request's `id` when it can be recovered;
//! - backpressure: while [`MAX_OUTSTANDING`] requests have no answer written
//!   to stdout (a client that sends and does not read), no further line is
//!   read, so the server's memory stays bounded. A request the client
//!   cancels (`notifications/cancelled`) before it is answered is owed no
//!   more: rmcp sends no answer for it, and counting it would stop reading
//!   for good after [`MAX_OUTSTANDING`] cancellations;
//! - end of input stops the runs in progress at once (they end
//!   `scheme_eval.interrupted`, recorded) instead of letting them run on.
//!
//! The filter parses each line once and hands rmcp the message it parsed
//! ([`Lines`] is rmcp's transport); rmcp's answers come back as messages,
//! serialized once, so the writer knows a response without reading it
//! again. (Through a byte pipe, a request was parsed twice and every answer,
//! 27 KB for a ready queue of 365 issues, was scanned once more.)

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::RoleServer;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest request line taken (the program limit plus room for the rest).
pub const MAX_LINE: usize = 16 * 1024 * 1024;
/// Requests in flight (read, not yet answered on stdout) before reading stops.
pub const MAX_OUTSTANDING: usize = 16;
/// Messages read and judged that rmcp has not taken yet.
const INCOMING: usize = 64;

/// A JSON-RPC error response.
fn error_line(id: Option<Value>, code: i64, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default();
    line.push(b'\n');
    line
}

/// The `id` of a line that failed to parse as a whole, when its top level is
/// an object whose `id` member can still be read (a bad escape elsewhere).
fn recover_id(line: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        id: Option<Value>,
    }
    let probe: Probe = serde_json::from_slice(line).ok()?;
    probe.id.filter(|id| id.is_string() || id.is_number())
}

/// What the filter does with one line.
#[derive(Debug)]
enum Verdict {
    /// Pass it on (a request among them will be answered).
    Forward(Box<ClientJsonRpcMessage>),
    /// Answer it with this error line instead.
    Refuse(Vec<u8>),
    /// A blank line: nothing.
    Skip,
}

fn judge(line: &[u8]) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            let id = recover_id_lossy(line);
            return Verdict::Refuse(error_line(id, -32700, &format!("parse error: {e}")));
        }
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned();
    if value.is_array() {
        return Verdict::Refuse(error_line(
            None,
            -32600,
            "invalid request: JSON-RPC batches are not supported by MCP",
        ));
    }
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(message) => Verdict::Forward(Box::new(message)),
        Err(e) => Verdict::Refuse(error_line(
            id,
            -32600,
            &format!("invalid request: not an MCP message: {e}"),
        )),
    }
}

/// [`recover_id`], also through a line whose only fault is a lone surrogate
/// escape (`\ud800`), which no JSON parser takes.
fn recover_id_lossy(line: &[u8]) -> Option<Value> {
    recover_id(line).or_else(|| {
        let text = String::from_utf8_lossy(line);
        let patched = regex::Regex::new(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
            .ok()?
            .replace_all(&text, "?");
        recover_id(patched.as_bytes())
    })
}

/// Serves `server` on stdin/stdout through the filter.
///
/// # Errors
/// The transport failed.
pub async fn serve(server: super::TuskServer) -> Result<(), String> {
    use rmcp::ServiceExt;
    let (feed, incoming) = mpsc::channel(INCOMING);
    // Unbounded, so that rmcp's sends are queued in the order rmcp makes
    // them. What it holds is bounded elsewhere: answers by
    // MAX_OUTSTANDING, progress by the calls of the runs in progress.
    let (to_stdout, stdout_lines) = mpsc::unbounded_channel::<(Vec<u8>, bool)>();
    let owed = Owed::default();
    let writer = tokio::spawn(write_stdout(stdout_lines, owed.clone()));
    let reader = tokio::spawn(read_stdin(
        feed,
        to_stdout.clone(),
        owed.clone(),
        server.shutdown_token(),
    ));
    server.spawn_housekeeping();
    let running = server
        .clone()
        .serve(Lines {
            incoming,
            outgoing: to_stdout,
            owed,
        })
        .await
        .map_err(|e| e.to_string())?;
    let waited = running.waiting().await.map_err(|e| e.to_string());
    server.drain(std::time::Duration::from_secs(5)).await;
    reader.abort();
    let _ = writer.await;
    waited?;
    Ok(())
}

/// rmcp's transport: the messages the filter parsed in, each answer
/// serialized once on its way to the writer.
struct Lines {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    outgoing: mpsc::UnboundedSender<(Vec<u8>, bool)>,
    owed: Owed,
}

impl rmcp::transport::Transport<RoleServer> for Lines {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Queued here, not in the future: rmcp runs its send futures
        // concurrently, and a request's progress must stay ahead of its answer.
        let queued = line_of(&item).and_then(|line| {
            let answer = answered(&item);
            let is_answer = answer.is_some();
            if let Some(id) = answer {
                self.owed.answered(id);
            }
            self.outgoing.send((line, is_answer)).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
            })
        });
        std::future::ready(queued)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// One message as a line of JSON.
fn line_of(message: &ServerJsonRpcMessage) -> Result<Vec<u8>, std::io::Error> {
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    Ok(line)
}

/// What the server owes the client on stdout, and the signal that it paid:
/// reading pauses while [`MAX_OUTSTANDING`] are owed.
#[derive(Clone, Default)]
struct Owed {
    state: Arc<Mutex<Debts>>,
    paid: Arc<tokio::sync::Notify>,
}

/// `owed` counts the requests rmcp has not answered (`unanswered`, by id)
/// and the answers queued but not yet written, the filter's refusals among
/// them.
#[derive(Default)]
struct Debts {
    owed: usize,
    unanswered: HashMap<RequestId, usize>,
}

impl Owed {
    fn state(&self) -> std::sync::MutexGuard<'_, Debts> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A request passed to rmcp.
    fn request(&self, id: RequestId) {
        let mut debts = self.state();
        debts.owed += 1;
        *debts.unanswered.entry(id).or_default() += 1;
    }

    /// An answer of the filter's own, queued.
    fn refusal(&self) {
        self.state().owed += 1;
    }

    /// rmcp queued an answer to `id`. An answer to a request that was not
    /// owed any more (cancelled, then answered all the same) is owed until
    /// written, like any queued answer.
    fn answered(&self, id: Option<RequestId>) {
        let mut debts = self.state();
        if !id.is_some_and(|id| debts.take(&id)) {
            debts.owed += 1;
        }
    }

    /// The client cancelled `id`: if rmcp has not answered it, it will not.
    fn cancelled(&self, id: &RequestId) {
        let mut debts = self.state();
        if debts.take(id) {
            debts.owed -= 1;
            drop(debts);
            self.paid.notify_one();
        }
    }

    /// A queued answer was written.
    fn written(&self) {
        let mut debts = self.state();
        debts.owed = debts.owed.saturating_sub(1);
        drop(debts);
        self.paid.notify_one();
    }

    async fn room(&self) {
        while self.state().owed >= MAX_OUTSTANDING {
            self.paid.notified().await;
        }
    }
}

impl Debts {
    /// Takes one unanswered request `id`; false when none is.
    fn take(&mut self, id: &RequestId) -> bool {
        match self.unanswered.get_mut(id) {
            Some(n) if *n > 1 => *n -= 1,
            Some(_) => {
                self.unanswered.remove(id);
            }
            None => return false,
        }
        true
    }
}

/// One writer owns stdout; a response it writes frees a slot.
async fn write_stdout(mut lines: mpsc::UnboundedReceiver<(Vec<u8>, bool)>, owed: Owed) {
    let mut stdout = tokio::io::stdout();
    while let Some((line, is_response)) = lines.recv().await {
        if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
        if is_response {
            owed.written();
        }
    }
}

/// stdin, line by line, judged; reading pauses while answers are owed.
async fn read_stdin(
    feed: mpsc::Sender<ClientJsonRpcMessage>,
    to_stdout: mpsc::UnboundedSender<(Vec<u8>, bool)>,
    owed: Owed,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let mut stdin = BufReader::with_capacity(1 << 16, tokio::io::stdin());
    // Answers a line the filter refuses; false once stdout is gone.
    let refuse = |answer: Vec<u8>| {
        owed.refusal();
        to_stdout.send((answer, true))
    };
    loop {
        owed.room().await;
        let line = match read_line(&mut stdin).await {
            Line::Eof => break,
            Line::TooLong => {
                let answer = error_line(
                    None,
                    -32600,
                    &format!("invalid request: a message line is limited to {MAX_LINE} bytes"),
                );
                if refuse(answer).is_err() {
                    break;
                }
                continue;
            }
            Line::Text(line) => line,
        };
        match judge(&line) {
            Verdict::Skip => {}
            Verdict::Refuse(answer) => {
                if refuse(answer).is_err() {
                    break;
                }
            }
            Verdict::Forward(message) => {
                match &*message {
                    JsonRpcMessage::Request(request) => owed.request(request.id.clone()),
                    JsonRpcMessage::Notification(n) => {
                        if let ClientNotification::CancelledNotification(c) = &n.notification {
                            if let Some(id) = &c.params.request_id {
                                owed.cancelled(id);
                            }
                        }
                    }
                    _ => {}
                }
                if feed.send(*message).await.is_err() {
                    break;
                }
            }
        }
    }
    // The client is gone: stop what runs, then let rmcp see the end.
    shutdown.cancel();
    drop(feed);
}

/// The id a message rmcp sends answers, when it is an answer (a response,
/// or an error, whose id may be unknown); `None` for anything else.
fn answered(message: &ServerJsonRpcMessage) -> Option<Option<RequestId>> {
    match message {
        JsonRpcMessage::Response(r) => Some(Some(r.id.clone())),
        JsonRpcMessage::Error(e) => Some(e.id.clone()),
        _ => None,
    }
}

enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
}

/// One line of at most [`MAX_LINE`] bytes; a longer one is read to its end
/// and dropped, so the next line starts clean.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R) -> Line {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let (found, used) = {
            let buf = match reader.fill_buf().await {
                Ok(b) => b,
                Err(_) => return Line::Eof,
            };
            if buf.is_empty() {
                return match (line.is_empty(), too_long) {
                    (_, true) => Line::TooLong,
                    (true, false) => Line::Eof,
                    (false, false) => Line::Text(line),
                };
            }
            match memchr::memchr(b'\n', buf) {
                Some(at) => {
                    if !too_long {
                        line.extend_from_slice(&buf[..=at]);
                    }
                    (true, at + 1)
                }
                None => {
                    if !too_long {
                        line.extend_from_slice(buf);
                    }
                    (false, buf.len())
                }
            }
        };
        reader.consume(used);
        if line.len() > MAX_LINE {
            too_long = true;
            line = Vec::new();
        }
        if found {
            return if too_long {
                Line::TooLong
            } else {
                Line::Text(line)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(v: &Verdict) -> (i64, Value) {
        match v {
            Verdict::Refuse(line) => {
                let v: Value = serde_json::from_slice(line).unwrap();
                (v["error"]["code"].as_i64().unwrap(), v["id"].clone())
            }
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn every_bad_line_gets_an_error_with_its_id_when_readable() {
        assert_eq!(
            code(&judge(br#"{"jsonrpc":"2.0","id":7,"#)),
            (-32700, Value::Null)
        );
        assert_eq!(
            code(&judge(
                br#"{"jsonrpc":"2.0","id":8,"method":"x","params":{"p":"\ud800"}}"#
            )),
            (-32700, json!(8))
        );
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        assert_eq!(code(&judge(deep.as_bytes())).0, -32700);
        assert_eq!(
            code(&judge(br#"{"jsonrpc":"2.0","id":10}"#)),
            (-32600, json!(10))
        );
        assert_eq!(code(&judge(b"[1,2]")).0, -32600);
        assert_eq!(code(&judge(b"42")).0, -32600);
        assert!(matches!(judge(b"  \n"), Verdict::Skip));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#),
            Verdict::Forward(m) if matches!(*m, JsonRpcMessage::Request(_))
        ));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Verdict::Forward(m) if matches!(*m, JsonRpcMessage::Notification(_))
        ));
    }

    #[test]
    fn responses_are_told_from_requests() {
        let message = |text: &str| -> ServerJsonRpcMessage { serde_json::from_str(text).unwrap() };
        assert_eq!(
            answered(&message(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)),
            Some(Some(RequestId::Number(1)))
        );
        assert_eq!(
            answered(&message(
                r#"{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}"#
            )),
            Some(Some(RequestId::String("a".into())))
        );
        assert_eq!(
            answered(&message(
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#
            )),
            None
        );
        assert_eq!(
            answered(&message(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)),
            None
        );
    }

    #[test]
    fn a_cancelled_request_is_owed_once_at_most() {
        let owed = Owed::default();
        let debt = |owed: &Owed| owed.state().owed;
        let one = RequestId::Number(1);
        let two = RequestId::Number(2);
        owed.request(one.clone());
        owed.request(two.clone());
        owed.refusal();
        assert_eq!(debt(&owed), 3);
        // Cancelled before rmcp answered: rmcp will not, so it is owed no more.
        owed.cancelled(&one);
        assert_eq!(debt(&owed), 2);
        // Answered all the same: owed until written, not twice freed.
        owed.answered(Some(one.clone()));
        assert_eq!(debt(&owed), 3);
        owed.written();
        assert_eq!(debt(&owed), 2);
        // Answered, then cancelled while the answer waits to be written.
        owed.answered(Some(two.clone()));
        owed.cancelled(&two);
        assert_eq!(debt(&owed), 2);
        owed.written();
        owed.written();
        assert_eq!(debt(&owed), 0);
        // An id sent twice is owed twice, and a cancel frees one of them.
        owed.request(one.clone());
        owed.request(one.clone());
        owed.cancelled(&one);
        owed.cancelled(&one);
        owed.cancelled(&one);
        assert_eq!(debt(&owed), 0);
    }
}
