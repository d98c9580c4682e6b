//! The runs pages: the runs list (newest first, read from the effect log's
//! end a page at a time), one run (its program, host calls, envelopes and
//! the log's own checks), and its replay against the record.
//!
//! A row that is not a JSON object, or names no run, is listed as an error
//! row where it stands: the rows around it still show.
//!
//! The same backward scan, with a [`RunFilter`], finds the runs of one
//! session (`/sessions/SID`) and the runs that touched one issue
//! (`/issues/ID`), within the same bound on rows read (issue 47).

use super::html::{esc, table, url_part, Html};
use super::tail::{Backward, Forward, Line};
use super::{number, text, value_text, Observer, Page, PageError, Params};
use crate::effects::{LogContents, LogRow, ROW_KIND, RUN_END_KIND, RUN_KIND};
use crate::logs::LogStore;
use crate::replay::{self, log, Selection};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Runs per page unless `limit` says otherwise.
const DEFAULT_LIMIT: u64 = 25;
const MAX_LIMIT: u64 = 200;
/// Rows one list page reads at most (runs with very many calls): the page
/// then ends early with a cursor to go on from.
const MAX_SCAN_ROWS: usize = 200_000;
/// Rows read forward past a page's cursor for the footers of its runs that
/// finished after rows of newer runs began.
const MAX_FOOTER_LOOKAHEAD: usize = 20_000;
/// Rows read forward from a run's header to its footer at most.
const MAX_RUN_ROWS: usize = 500_000;

/// One run as the list shows it.
#[derive(Default)]
struct Summary {
    run_id: String,
    pos: u64,
    started_at: Option<String>,
    session_id: Option<String>,
    principal: Option<String>,
    issue_id: Option<String>,
    program: String,
    /// The highest call `seq` seen.
    calls: u64,
    footer: Option<Value>,
    /// The first rejected call: seq, action, result class.
    first_rejected: Option<(u64, String, String)>,
}

/// What the newer rows of a run told before its header was reached.
#[derive(Default)]
struct Later {
    calls: u64,
    footer: Option<Value>,
    first_rejected: Option<(u64, String, String)>,
    /// A call row matched the scan's [`RunFilter`].
    matched: bool,
}

impl Later {
    fn note_call(&mut self, row: &Value) {
        let seq = row.get("seq").and_then(Value::as_u64).unwrap_or(0);
        self.calls = self.calls.max(seq);
        let class = row["envelope"]["resultClass"].as_str().unwrap_or("");
        if class != "accepted"
            && self
                .first_rejected
                .as_ref()
                .is_none_or(|(s, _, _)| seq < *s)
        {
            self.first_rejected = Some((seq, value_text(&row["action"]), class.to_string()));
        }
    }
}

fn duration_ms(started: Option<&str>, footer: Option<&Value>) -> Option<i64> {
    let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
    let start = parse(started?)?;
    let end = parse(footer?.get("finishedAt")?.as_str()?)?;
    Some((end - start).num_milliseconds())
}

impl Summary {
    fn of(pos: u64, header: &Value, later: Later) -> Self {
        let Later {
            calls,
            footer,
            first_rejected,
            ..
        } = later;
        let s = |key: &str| header.get(key).and_then(Value::as_str).map(str::to_string);
        Summary {
            run_id: s("runId").unwrap_or_default(),
            pos,
            started_at: s("startedAt"),
            session_id: s("sessionId"),
            principal: s("principal"),
            issue_id: header["authority"]["issueId"].as_str().map(str::to_string),
            program: s("program").unwrap_or_default(),
            calls,
            footer,
            first_rejected,
        }
    }

    fn result(&self) -> String {
        match &self.footer {
            Some(f) => value_text(&f["result"]),
            None => "unfinished".into(),
        }
    }

    fn failure_classes(&self) -> Vec<String> {
        self.footer
            .as_ref()
            .and_then(|f| f["failureClasses"].as_array())
            .map(|a| a.iter().map(value_text).collect())
            .unwrap_or_default()
    }

    fn to_json(&self) -> Value {
        json!({
            "kind": "run",
            "runId": self.run_id,
            "pos": self.pos,
            "href": run_href(&self.run_id, self.pos),
            "startedAt": self.started_at,
            "finishedAt": self.footer.as_ref().map(|f| f["finishedAt"].clone()),
            "durationMs": duration_ms(self.started_at.as_deref(), self.footer.as_ref()),
            "sessionId": self.session_id,
            "principal": self.principal,
            "issueId": self.issue_id,
            "result": self.result(),
            "failureClasses": self.failure_classes(),
            "callCount": self.calls,
            "firstRejected": self.first_rejected.as_ref().map(|(seq, action, class)| json!({
                "seq": seq, "action": action, "resultClass": class,
            })),
            "programHead": program_head(&self.program),
        })
    }
}

/// The program's first non-empty line, shortened: what the list shows.
fn program_head(program: &str) -> String {
    let line = program
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    crate::terminal::clip(line, 80)
}

/// The link to a run's page (with the header's position, so the page reads
/// from there instead of searching the log).
fn run_href(run_id: &str, pos: u64) -> String {
    format!("/runs/{}?at={pos}", url_part(run_id))
}

/// One row read, or why it is not one.
enum Read {
    Row(Value),
    Bad(String),
}

fn read_row(line: &Line) -> Read {
    match serde_json::from_slice::<Value>(&line.bytes) {
        Ok(v) if v.is_object() => Read::Row(v),
        Ok(_) => Read::Bad("not a JSON object".into()),
        Err(e) => Read::Bad(format!("not JSON ({e})")),
    }
}

fn error_entry(pos: u64, message: &str) -> Value {
    json!({"kind": "error", "pos": pos, "message": message})
}

/// Which runs a scan keeps besides the bound on rows: the runs whose header
/// `all` accepts and, of those, the runs whose header `header` accepts or
/// one of whose call rows `call` accepts. Unreadable rows are not listed
/// under a filter (they belong to no run it can name).
pub(crate) struct RunFilter<'f> {
    pub all: &'f dyn Fn(&Value) -> bool,
    pub header: &'f dyn Fn(&Value) -> bool,
    pub call: &'f dyn Fn(&Value) -> bool,
    /// And, of those, the runs whose footer (`None`: not ended, or ended
    /// after the page's cursor) this accepts.
    pub footer: &'f dyn Fn(Option<&Value>) -> bool,
}

/// A filter's footer test that keeps every run.
pub(crate) fn any_footer(_: Option<&Value>) -> bool {
    true
}

/// A filter's `all` test that keeps every run.
pub(crate) fn every(_: &Value) -> bool {
    true
}

/// What a scan found: list entries (a run's summary or an error row as
/// JSON), newest first, the cursor to go on from (`None` once the log's
/// start was reached), and how many rows it read.
pub(crate) struct Found {
    pub items: Vec<Value>,
    pub next: Option<u64>,
    pub scanned: usize,
}

/// Reads the log backwards from `before` (or its end) for at most `limit`
/// runs the filter keeps (every run without one), within [`MAX_SCAN_ROWS`].
pub(crate) fn find_runs(
    log: &LogStore,
    before: Option<u64>,
    limit: usize,
    filter: Option<&RunFilter<'_>>,
) -> Result<Found, PageError> {
    let Scan {
        mut entries,
        last_pos,
        exhausted,
        scanned,
    } = scan_back(log, before, limit, filter)?;
    if let Some(from) = before {
        complete_open_runs(log, from, &mut entries)?;
    }
    Ok(Found {
        items: entries
            .iter()
            .map(|e| match e {
                Ok(s) => s.to_json(),
                Err(v) => v.clone(),
            })
            .collect(),
        next: if exhausted { None } else { last_pos },
        scanned,
    })
}

/// The `before` cursor of a list page: `None` for the log's end.
pub(crate) fn before_of(params: &Params) -> Result<Option<u64>, PageError> {
    match text(params, "before") {
        None => Ok(None),
        Some(_) => Ok(Some(number(params, "before", 0, u64::MAX)?)),
    }
}

/// The runs table's headers ([`run_cells`] fills them).
pub(crate) const RUN_HEADERS: [&str; 10] = [
    "run",
    "started",
    "result",
    "failure classes",
    "calls",
    "duration",
    "principal",
    "session",
    "issue",
    "program",
];

/// The runs list page.
pub fn list_page(o: &Observer, params: &Params) -> Result<Page, PageError> {
    let limit = number(params, "limit", DEFAULT_LIMIT, MAX_LIMIT)?.max(1) as usize;
    let before = before_of(params)?;
    let log = &o.stores.effects;
    // The filters (issue 60): result, principal, issue, session, since.
    let query = super::run_query::RunQuery::from_params(params, chrono::Utc::now())?;
    let Found { items, next, .. } = query.find(log, before, limit)?;
    // A session's forms that made no host call (definitions, arithmetic at
    // the REPL) fold into one row, unless the page lists one session or is
    // asked for every form (issue 60).
    let every_form = text(params, "forms") == Some("all");
    let items = if every_form || query.session.is_some() {
        items
    } else {
        fold_quiet_forms(items)
    };
    let json = json!({
        "kind": "tusk.observe.runs.v0",
        "effectsPath": log.path().display().to_string(),
        "result": query.result,
        "filter": query.to_json(),
        "before": before,
        "limit": limit,
        "next": next,
        "items": items,
    });

    let mut body = Html::default();
    body.raw(&format!(
        "<p class=\"muted\">Newest first from <code>{}</code>. \
         <label><input type=\"checkbox\" id=\"live\"{}> live</label> \
         <span id=\"live-status\" class=\"muted\"></span></p>",
        esc(&log.path().display().to_string()),
        if before.is_none() { " checked" } else { "" }
    ));
    let rows: Vec<Vec<String>> = items.iter().map(run_cells).collect();
    body.raw(&table("runs", &RUN_HEADERS, &rows));
    body.raw(&format!(
        "<p class=\"pager\" id=\"runs-pager\" data-limit=\"{limit}\">{}</p>",
        match next {
            Some(n) => format!(
                "<a rel=\"next\" href=\"/runs?before={n}&amp;limit={limit}{}\">older runs</a>",
                query
                    .params()
                    .iter()
                    .map(|(k, v)| format!("&amp;{k}={}", url_part(v)))
                    .collect::<String>()
                    + if every_form { "&amp;forms=all" } else { "" }
            ),
            None => "the log's first run".into(),
        }
    ));
    Ok(Page {
        title: "Runs".into(),
        nav: "/runs",
        body: body.0,
        json,
    })
}

/// Runs and error rows, newest first, read backwards from `before` (or the
/// end); where the scan stopped, whether it reached the log's start, and
/// how many rows it read.
struct Scan {
    entries: Vec<Result<Summary, Value>>,
    last_pos: Option<u64>,
    exhausted: bool,
    scanned: usize,
}

/// Reads the log backwards until `limit` entries (or the scan bound).
fn scan_back(
    log: &LogStore,
    before: Option<u64>,
    limit: usize,
    filter: Option<&RunFilter<'_>>,
) -> Result<Scan, PageError> {
    let mut back = Backward::open(log, before)?;
    let mut later: HashMap<String, Later> = HashMap::new();
    // Runs and error rows, newest first.
    let mut entries: Vec<Result<Summary, Value>> = Vec::new();
    let mut scanned = 0usize;
    let mut last_pos = None;
    let mut exhausted = false;
    let bad = |entries: &mut Vec<_>, pos: u64, why: &str| {
        if filter.is_none() {
            entries.push(Err(error_entry(pos, why)));
        }
    };
    while entries.len() < limit && scanned < MAX_SCAN_ROWS {
        let Some(line) = back.next_line()? else {
            exhausted = true;
            break;
        };
        scanned += 1;
        last_pos = Some(line.pos);
        let row = match read_row(&line) {
            Read::Row(row) => row,
            Read::Bad(why) => {
                bad(&mut entries, line.pos, &why);
                continue;
            }
        };
        let kind = row
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let Some(run_id) = row.get("runId").and_then(Value::as_str).map(str::to_string) else {
            bad(
                &mut entries,
                line.pos,
                &format!("a {kind:?} row without a runId"),
            );
            continue;
        };
        match kind.as_str() {
            RUN_END_KIND => {
                later.entry(run_id).or_default().footer = Some(row);
            }
            ROW_KIND => {
                let w = later.entry(run_id).or_default();
                w.note_call(&row);
                w.matched |= filter.is_some_and(|f| (f.call)(&row));
            }
            RUN_KIND => {
                let newer = later.remove(&run_id).unwrap_or_default();
                let kept = |f: &RunFilter<'_>| {
                    (f.all)(&row)
                        && (newer.matched || (f.header)(&row))
                        && (f.footer)(newer.footer.as_ref())
                };
                if filter.is_none_or(kept) {
                    entries.push(Ok(Summary::of(line.pos, &row, newer)));
                }
            }
            other => bad(
                &mut entries,
                line.pos,
                &format!("an unknown row kind {other:?}"),
            ),
        }
    }
    Ok(Scan {
        entries,
        last_pos,
        exhausted,
        scanned,
    })
}

/// A run that began before the cursor may have ended after it: reads forward
/// from the cursor for the calls and footers of the page's open runs.
fn complete_open_runs(
    log: &LogStore,
    from: u64,
    entries: &mut [Result<Summary, Value>],
) -> Result<(), PageError> {
    let open: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Ok(s) if s.footer.is_none()))
        .map(|(i, _)| i)
        .collect();
    if !open.is_empty() {
        let mut wanted: HashMap<String, Later> = open
            .iter()
            .filter_map(|&i| {
                entries[i]
                    .as_ref()
                    .ok()
                    .map(|s| (s.run_id.clone(), Later::default()))
            })
            .collect();
        let mut fwd = Forward::open(log, from)?;
        let mut found = 0;
        for _ in 0..MAX_FOOTER_LOOKAHEAD {
            let Some(line) = fwd.next_line()? else { break };
            let Read::Row(row) = read_row(&line) else {
                continue;
            };
            let Some(w) = row
                .get("runId")
                .and_then(Value::as_str)
                .and_then(|id| wanted.get_mut(id))
            else {
                continue;
            };
            match row.get("kind").and_then(Value::as_str) {
                Some(ROW_KIND) => w.note_call(&row),
                Some(RUN_END_KIND) => {
                    w.footer = Some(row);
                    found += 1;
                }
                _ => {}
            }
            if found == wanted.len() {
                break;
            }
        }
        for i in open {
            if let Ok(s) = &mut entries[i] {
                if let Some(w) = wanted.remove(&s.run_id) {
                    s.calls = s.calls.max(w.calls);
                    s.footer = w.footer;
                    if s.first_rejected.is_none() {
                        s.first_rejected = w.first_rejected;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The fewest quiet forms in a row that fold into one entry.
const FOLD_AT: usize = 2;

/// Folds each stretch of `FOLD_AT` or more consecutive entries that are
/// forms of one session, accepted, with no host call, into one
/// `quietForms` entry: their count, the newest and oldest start, the first
/// programs' heads and the link that lists them all.
fn fold_quiet_forms(items: Vec<Value>) -> Vec<Value> {
    let quiet = |item: &Value| -> Option<String> {
        (item["callCount"] == 0 && item["result"] == "accepted")
            .then(|| item["sessionId"].as_str().map(str::to_string))
            .flatten()
    };
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    let mut stretch: Vec<Value> = Vec::new();
    let flush = |stretch: &mut Vec<Value>, out: &mut Vec<Value>| {
        if stretch.len() < FOLD_AT {
            out.append(stretch);
            return;
        }
        let sid = stretch[0]["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let heads: Vec<&Value> = stretch.iter().take(3).map(|i| &i["programHead"]).collect();
        out.push(json!({
            "kind": "quietForms",
            "sessionId": sid,
            "count": stretch.len(),
            "newestStartedAt": stretch[0]["startedAt"],
            "oldestStartedAt": stretch[stretch.len() - 1]["startedAt"],
            "principal": stretch[0]["principal"],
            "programHeads": heads,
            "runIds": stretch.iter().map(|i| &i["runId"]).collect::<Vec<_>>(),
            "href": format!("/runs?session={}&forms=all", url_part(&sid)),
        }));
        stretch.clear();
    };
    for item in items {
        match quiet(&item) {
            Some(sid)
                if stretch
                    .first()
                    .is_none_or(|first| first["sessionId"].as_str() == Some(&sid)) =>
            {
                stretch.push(item);
            }
            Some(_) => {
                flush(&mut stretch, &mut out);
                stretch.push(item);
            }
            None => {
                flush(&mut stretch, &mut out);
                out.push(item);
            }
        }
    }
    flush(&mut stretch, &mut out);
    out
}

/// The cells of one list entry (the page's JavaScript builds the same cells
/// from the JSON when it refreshes).
pub(crate) fn run_cells(item: &Value) -> Vec<String> {
    if item["kind"] == "quietForms" {
        let heads: Vec<String> = item["programHeads"]
            .as_array()
            .map(|a| a.iter().map(value_text).collect())
            .unwrap_or_default();
        let count = item["count"].as_u64().unwrap_or(0);
        return vec![
            format!(
                "<a class=\"quiet-forms\" href=\"{}\">{count} forms</a>",
                esc(&value_text(&item["href"]))
            ),
            esc(&value_text(&item["newestStartedAt"])),
            "<span class=\"tag result-accepted\">accepted</span>".into(),
            String::new(),
            "0".into(),
            String::new(),
            esc(&value_text(&item["principal"])),
            item["sessionId"]
                .as_str()
                .map(session_link)
                .unwrap_or_default(),
            String::new(),
            format!(
                "<span class=\"muted\">no host calls:</span> <code>{}</code>{}",
                esc(&heads.join(" · ")),
                if count as usize > heads.len() {
                    " …"
                } else {
                    ""
                }
            ),
        ];
    }
    if item["kind"] == "error" {
        let mut cells = vec![
            "<span class=\"tag state-stale\">bad row</span>".into(),
            format!("at {}", esc(&value_text(&item["pos"]))),
            String::new(),
            esc(&value_text(&item["message"])),
        ];
        cells.resize(RUN_HEADERS.len(), String::new());
        return cells;
    }
    let result = value_text(&item["result"]);
    let classes: Vec<String> = item["failureClasses"]
        .as_array()
        .map(|a| a.iter().map(value_text).collect())
        .unwrap_or_default();
    let run_id = value_text(&item["runId"]);
    vec![
        format!(
            "<a class=\"run\" href=\"{}\" title=\"{}\">{}</a>",
            esc(&value_text(&item["href"])),
            esc(&run_id),
            esc(short_run(&run_id))
        ),
        esc(&value_text(&item["startedAt"])),
        format!(
            "<span class=\"tag result-{}\">{}</span>",
            url_part(&result),
            esc(&result)
        ),
        esc(&classes.join(", ")),
        esc(&value_text(&item["callCount"])),
        item["durationMs"]
            .as_i64()
            .map(|ms| format!("{ms} ms"))
            .unwrap_or_default(),
        esc(&value_text(&item["principal"])),
        item["sessionId"]
            .as_str()
            .map(session_link)
            .unwrap_or_default(),
        item["issueId"]
            .as_str()
            .map(super::queue::issue_link)
            .unwrap_or_default(),
        format!("<code>{}</code>", esc(&value_text(&item["programHead"]))),
    ]
}

/// What the runs list shows of a run id (issue 60: the whole id took the
/// row's width): its last part, the digits that tell runs apart (the
/// started column gives its time); the whole id is the link's tooltip.
pub(crate) fn short_run(run_id: &str) -> &str {
    match run_id.rsplit_once('-') {
        Some((_, tail)) if tail.len() >= 8 => tail,
        _ => run_id,
    }
}

/// The link to a session's page. Session ids are long (an MCP one is 80
/// characters): the link shows their start, the whole id is its tooltip and
/// the session page's title.
pub(crate) fn session_link(sid: &str) -> String {
    let shown = crate::terminal::clip(sid, SESSION_CHARS);
    format!(
        "<a class=\"session\" href=\"{}\" title=\"{}\">{}</a>",
        super::html::thing_href("sessions", sid, ""),
        esc(sid),
        esc(&shown)
    )
}

/// Characters of a session id a link shows.
const SESSION_CHARS: usize = 16;

/// The rows of one run, in log order, with their positions and raw bytes.
struct RunRows {
    rows: Vec<(u64, Vec<u8>, Value)>,
}

/// Whether `row` is the header of `run_id`.
fn is_header(row: &Value, run_id: &str) -> bool {
    row.get("kind").and_then(Value::as_str) == Some(RUN_KIND)
        && row.get("runId").and_then(Value::as_str) == Some(run_id)
}

/// Reads a run's rows forward from its header at `at`; `None` when the row
/// there is not its header.
fn rows_from(o: &Observer, run_id: &str, at: u64) -> Result<Option<RunRows>, PageError> {
    let needle = serde_json::to_string(run_id).unwrap_or_default();
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut fwd = Forward::open(&o.stores.effects, at)?;
    let Some(first) = fwd.next_line()? else {
        return Ok(None);
    };
    let header = match read_row(&first) {
        Read::Row(row) if is_header(&row, run_id) && first.pos == at => row,
        _ => return Ok(None),
    };
    let mut rows = vec![(first.pos, first.bytes, header)];
    for _ in 0..MAX_RUN_ROWS {
        let Some(line) = fwd.next_line()? else { break };
        if finder.find(&line.bytes).is_none() {
            continue;
        }
        let Read::Row(row) = read_row(&line) else {
            continue;
        };
        if row.get("runId").and_then(Value::as_str) != Some(run_id) {
            continue;
        }
        let end = row.get("kind").and_then(Value::as_str) == Some(RUN_END_KIND);
        rows.push((line.pos, line.bytes, row));
        if end {
            break;
        }
    }
    Ok(Some(RunRows { rows }))
}

/// The start instant a tusk run id carries (`run-20261125T114353.135Z-…`).
fn id_instant(id: &str) -> Option<chrono::NaiveDateTime> {
    let stamp = id.strip_prefix("run-")?.get(..19)?;
    chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S%.3f").ok()
}

/// Positions on each side of the bisection's last interval that are scanned
/// for a header (runs of concurrent writers interleave around it): bytes of
/// a file, rows of a table.
const FILE_WINDOW: u64 = 4 << 20;
const TABLE_WINDOW: u64 = 4000;

/// The instant of the run a row names (`"runId":"run-…"`), read without
/// parsing the row.
fn row_instant(line: &[u8]) -> Option<chrono::NaiveDateTime> {
    let key = b"\"runId\":\"";
    let from = memchr::memmem::find(line, key)? + key.len();
    let end = memchr::memchr(b'"', &line[from..])? + from;
    id_instant(std::str::from_utf8(&line[from..end]).ok()?)
}

/// The instant of the run of the first whole row after byte `at` of a file,
/// `None` when none ends in the next 256 KiB.
fn instant_after(file: &std::fs::File, at: u64) -> Option<chrono::NaiveDateTime> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; 256 * 1024];
    let n = file.read_at(&mut buf, at).ok()?;
    let buf = &buf[..n];
    let start = memchr::memchr(b'\n', buf)? + 1;
    let end = memchr::memchr(b'\n', &buf[start..])? + start;
    row_instant(&buf[start..end])
}

/// Finds a header by the instant in the run's id: tusk's ids start with the
/// run's start time and runs are appended as they start, so the log is
/// bisected by it (on byte offsets of a file, on `seq` of a table) and only a
/// window around the result is read. `None` when the id carries no instant
/// or the window does not hold the header.
fn bisect_header(o: &Observer, run_id: &str, prefix: &[u8]) -> Result<Option<u64>, PageError> {
    let Some(target) = id_instant(run_id) else {
        return Ok(None);
    };
    let log = &o.stores.effects;
    let unreadable =
        |e: std::io::Error| PageError::Store(format!("cannot read {}: {e}", log.path().display()));
    type Probe<'a> = Box<dyn FnMut(u64) -> Option<chrono::NaiveDateTime> + 'a>;
    let (mut lo, mut hi, window, mut probe): (u64, u64, u64, Probe<'_>) = match log {
        crate::logs::LogStore::File(path) => {
            let file = match crate::files::open_read(path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(unreadable(e)),
            };
            let len = file.metadata().map_err(unreadable)?.len();
            (
                0,
                len,
                FILE_WINDOW,
                Box::new(move |at| instant_after(&file, at)),
            )
        }
        crate::logs::LogStore::Postgres { pg, table, .. } => {
            let Some((first, last)) =
                crate::pg::seq_bounds(pg, *table).map_err(|e| PageError::Store(e.to_string()))?
            else {
                return Ok(None);
            };
            let (pg, table) = (pg.clone(), *table);
            let probe = move |at: u64| {
                let rows = crate::pg::read_from(&pg, table, at as i64, 1).ok()?;
                row_instant(rows.first()?.1.as_bytes())
            };
            (
                first.max(0) as u64,
                last.max(0) as u64 + 1,
                TABLE_WINDOW,
                Box::new(probe),
            )
        }
    };
    while hi - lo > window {
        let mid = lo + (hi - lo) / 2;
        match probe(mid) {
            Some(t) if t < target => lo = mid,
            Some(_) => hi = mid,
            None => return Ok(None),
        }
    }
    let end = hi.saturating_add(window);
    let mut fwd = Forward::open(log, lo.saturating_sub(window))?;
    while let Some(line) = fwd.next_line()? {
        if line.pos > end {
            break;
        }
        if line.bytes.starts_with(prefix) {
            if let Read::Row(row) = read_row(&line) {
                if is_header(&row, run_id) {
                    return Ok(Some(line.pos));
                }
            }
        }
    }
    Ok(None)
}

/// Finds a run's header without a position: by bisecting the log on the
/// id's instant ([`bisect_header`]), else on the database by one query, in
/// a file by reading backwards from the end.
fn find_header(o: &Observer, run_id: &str) -> Result<Option<u64>, PageError> {
    let id = serde_json::to_string(run_id).unwrap_or_default();
    let prefix = format!("{{\"kind\":\"{RUN_KIND}\",\"runId\":{id}");
    if let Some(pos) = bisect_header(o, run_id, prefix.as_bytes())? {
        return Ok(Some(pos));
    }
    if let crate::logs::LogStore::Postgres { pg, table, .. } = &o.stores.effects {
        return Ok(crate::pg::find_last(pg, *table, &prefix)
            .map_err(|e| PageError::Store(e.to_string()))?
            .map(|seq| seq.max(0) as u64));
    }
    let finder = memchr::memmem::Finder::new(id.as_bytes());
    let mut back = Backward::open(&o.stores.effects, None)?;
    while let Some(line) = back.next_line()? {
        if finder.find(&line.bytes).is_none() {
            continue;
        }
        if let Read::Row(row) = read_row(&line) {
            if is_header(&row, run_id) {
                return Ok(Some(line.pos));
            }
        }
    }
    Ok(None)
}

/// The run's rows, grouped and checked as `tusk replay --verify` checks them
/// (`line` numbers are the rows' places within the run: 1 is the header).
fn load_run(
    o: &Observer,
    run_id: &str,
    params: &Params,
) -> Result<(u64, Option<String>, log::RecordedRun), PageError> {
    let hinted = match text(params, "at") {
        Some(_) => rows_from(o, run_id, number(params, "at", 0, u64::MAX)?)?,
        None => None,
    };
    let rows = match hinted {
        Some(rows) => rows,
        None => {
            let Some(at) = find_header(o, run_id)? else {
                return Err(PageError::NotFound(format!(
                    "no run {run_id} in {}",
                    o.stores.effects.path().display()
                )));
            };
            rows_from(o, run_id, at)?.ok_or_else(|| {
                PageError::NotFound(format!("the run {run_id} moved while it was read"))
            })?
        }
    };
    let pos = rows.rows.first().map_or(0, |r| r.0);
    // The principal is the header's (the grouped run does not carry it).
    let principal = rows
        .rows
        .first()
        .and_then(|r| r.2.get("principal"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let contents = LogContents {
        rows: rows
            .rows
            .into_iter()
            .enumerate()
            .map(|(i, (_, bytes, row))| LogRow {
                line: i + 1,
                digest: crate::chain::row_digest(&bytes),
                row,
            })
            .collect(),
        warnings: Vec::new(),
    };
    let mut grouped = log::group(contents);
    let run = grouped
        .runs
        .pop()
        .ok_or_else(|| PageError::NotFound(format!("no run {run_id}")))?;
    Ok((pos, principal, run))
}

fn problem_json(p: &log::Problem) -> Value {
    json!({"row": p.line, "seq": p.seq, "field": p.field, "expected": p.expected, "got": p.got})
}

/// One run's page.
pub fn run_page(o: &Observer, run_id: &str, params: &Params) -> Result<Page, PageError> {
    let (pos, principal, run) = load_run(o, run_id, params)?;
    let footer = run.footer.clone().unwrap_or(Value::Null);
    let result = if run.footer.is_some() {
        value_text(&footer["result"])
    } else {
        "unfinished".to_string()
    };
    let calls: Vec<Value> = run
        .calls
        .iter()
        .map(|c| {
            json!({
                "seq": c.seq,
                "action": c.action,
                "args": c.args,
                "argsDigest": c.args_digest,
                "resultClass": c.envelope.value().get("resultClass"),
                "envelope": c.envelope.value(),
            })
        })
        .collect();
    let replay_href = format!("/runs/{}/replay?at={pos}", url_part(&run.run_id));
    let json = json!({
        "kind": "tusk.observe.run.v0",
        "runId": run.run_id,
        "pos": pos,
        "sessionId": run.session_id,
        "sessionHref": run.session_id.as_deref().map(|sid| super::html::thing_href("sessions", sid, "")),
        "principal": principal,
        "replCommand": repl_command(&run.run_id),
        "traceId": run.trace_id,
        "startedAt": run.started_at,
        "finishedAt": footer.get("finishedAt"),
        "durationMs": duration_ms(run.started_at.as_deref(), run.footer.as_ref()),
        "issueId": run.authority.issue_id,
        "result": result,
        "failureClasses": footer.get("failureClasses"),
        "program": run.program,
        "limits": run.limits,
        "calls": calls,
        "footer": run.footer,
        "verify": {
            "ok": run.problem.is_none(),
            "chained": run.chained,
            "problem": run.problem.as_ref().map(problem_json),
        },
        "replay": {"href": replay_href, "method": "POST"},
    });

    let mut body = Html::default();
    body.raw(&facts_html(&run, principal.as_deref(), &footer, &result));
    body.raw(&format!(
        "<section class=\"replay\"><button type=\"button\" id=\"replay\" data-href=\"{}\">Replay</button> \
         <span id=\"replay-verdict\" class=\"muted\">replaying…</span>\
         <div id=\"replay-detail\"></div></section>",
        esc(&replay_href)
    ));
    body.el("h2", "", "Program");
    body.raw(&program_html(&run.program));
    body.el("h2", "", "Host calls");
    let rows = call_rows(&run.calls);
    body.raw(&table(
        "calls",
        &["seq", "action", "result", "args", "envelope"],
        &rows,
    ));
    Ok(Page {
        title: format!("Run {}", run.run_id),
        nav: "/runs",
        body: body.0,
        json,
    })
}

/// The run's facts: id, result, times, issue, session, trace, log checks.
fn facts_html(
    run: &log::RecordedRun,
    principal: Option<&str>,
    footer: &Value,
    result: &str,
) -> String {
    let mut body = Html::default();
    let classes = footer["failureClasses"]
        .as_array()
        .map(|a| a.iter().map(value_text).collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    body.raw("<dl class=\"facts\">");
    let mut fact = |k: &str, v: String| {
        body.raw(&format!("<dt>{k}</dt><dd>{v}</dd>"));
    };
    fact(
        "run",
        format!("<code id=\"run-id\">{}</code>", esc(&run.run_id)),
    );
    fact(
        "result",
        format!(
            "<span class=\"tag result-{}\" id=\"run-result\">{}</span> {}",
            url_part(result),
            esc(result),
            esc(&classes)
        ),
    );
    fact("started", esc(run.started_at.as_deref().unwrap_or("")));
    fact("finished", esc(&value_text(&footer["finishedAt"])));
    if let Some(ms) = duration_ms(run.started_at.as_deref(), run.footer.as_ref()) {
        fact("duration", format!("{ms} ms"));
    }
    if let Some(id) = &run.authority.issue_id {
        fact("issue", super::queue::issue_link(id));
    }
    if let Some(p) = principal {
        fact(
            "principal",
            format!("<span id=\"run-principal\">{}</span>", esc(p)),
        );
    }
    if let Some(sid) = &run.session_id {
        fact(
            "session",
            format!("<span id=\"run-session\">{}</span>", session_link(sid)),
        );
    }
    // The trace the run was part of (docs/telemetry.md): what to look up in
    // the collector, and `tusk replay --trace` the way back.
    if let Some(trace) = &run.trace_id {
        fact(
            "trace",
            format!("<code id=\"trace-id\">{}</code>", esc(trace)),
        );
    }
    // Issue 47: the way into the run with the debugger, to copy.
    fact(
        "open in the REPL",
        format!(
            "<code id=\"repl-command\">{}</code>",
            esc(&repl_command(&run.run_id))
        ),
    );
    let verify = verify_html(run.problem.as_ref(), run.chained);
    fact("log checks", format!("<span id=\"verify\">{verify}</span>"));
    body.raw("</dl>");
    body.0
}

/// `tusk repl --run RUN`: the way into the run with the debugger (issue 47).
fn repl_command(run_id: &str) -> String {
    format!("tusk repl --run {}", super::shell_word(run_id))
}

/// The log's own checks on the run: verified, unchained, or what failed.
fn verify_html(problem: Option<&log::Problem>, chained: bool) -> String {
    match (problem, chained) {
        (None, true) => "<span class=\"tag result-accepted\">chain verified</span>".to_string(),
        (None, false) => {
            "<span class=\"tag\">unchained (an older log) · digests verified</span>".to_string()
        }
        (Some(p), _) => format!(
            "<span class=\"tag result-rejected\">log check failed</span> row {} · {}: expected {}, got {}",
            p.line,
            esc(&p.field),
            esc(&p.expected.to_string()),
            esc(&p.got.to_string())
        ),
    }
}

/// The program with numbered lines (the replay marks the failing one).
fn program_html(program: &str) -> String {
    let mut body = Html::default();
    body.raw("<pre class=\"program\" id=\"program\">");
    for (n, line) in program.lines().enumerate() {
        body.raw(&format!(
            "<span class=\"line\" id=\"L{}\"><span class=\"ln\">{}</span>{}</span>",
            n + 1,
            n + 1,
            esc(line)
        ));
    }
    body.raw("</pre>");
    body.0
}

/// The host calls table's cells.
fn call_rows(calls: &[log::RecordedCall]) -> Vec<Vec<String>> {
    calls
        .iter()
        .map(|c| {
            let class = value_text(&c.envelope.value()["resultClass"]);
            let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
            vec![
                c.seq.to_string(),
                format!("<code>{}</code>", esc(&c.action)),
                format!(
                    "<span class=\"tag result-{}\">{}</span>",
                    url_part(&class),
                    esc(&class)
                ),
                format!(
                    "<pre>{}</pre>",
                    esc(&c.args.as_ref().map(pretty).unwrap_or_else(|| "null".into()))
                ),
                format!(
                    "<details><summary>envelope</summary><pre>{}</pre></details>",
                    esc(&pretty(c.envelope.value()))
                ),
            ]
        })
        .collect()
}

/// Replays one run against its record (as `tusk replay --run` does, under
/// `tusk eval`'s default limits as the ceiling) and reports the verdict with
/// what the program produced.
pub fn replay(o: &Observer, run_id: &str, params: &Params) -> Result<Page, PageError> {
    let (_, _, run) = load_run(o, run_id, params)?;
    // The first call the host refused or rejected: where a run without an
    // error of its own went wrong (issue 60).
    let refused = run.calls.iter().enumerate().find_map(|(n, c)| {
        let envelope = c.envelope.value();
        (envelope["resultClass"].as_str() != Some("accepted")).then(|| {
            let class = envelope["failureClasses"][0]
                .as_str()
                .unwrap_or("")
                .to_string();
            (n, c.seq, c.action.clone(), class)
        })
    });
    // A session's form is replayed as the session (its earlier forms first,
    // as `tusk replay --run` does): alone it would report a divergence that
    // replaying the whole log does not.
    let runs = match run.session_id {
        Some(_) => {
            log::read_only(&o.stores.effects, log::Only::Run(run_id))
                .map_err(|e| PageError::Store(e.to_string()))?
                .runs
        }
        None => vec![run],
    };
    // The replayer holds every run (and every restaged one) to its ceiling,
    // `tusk eval`'s default limits.
    let reports = replay::Replayer::new()
        .replay(runs, &Selection::Run(run_id.to_string()))
        .map_err(|e| PageError::NotFound(e.to_string()))?;
    let mut reports = reports.into_iter();
    let report = reports
        .find(|r| r.run_id == run_id)
        .ok_or_else(|| PageError::NotFound(format!("no run {run_id}")))?;
    let mut json = report.to_json();
    if report.session_id.is_some() {
        json["note"] =
            json!("a form of a REPL or MCP session, replayed after the session's earlier forms");
    }
    if let Some(outcome) = &report.outcome {
        json["value"] = outcome.value.clone();
        json["output"] = json!(outcome.output);
        if let Some(e) = &outcome.error {
            json["error"] = json!({
                "class": e.class,
                "message": e.message,
                "line": e.line,
                "column": e.column,
            });
        }
        if let Some((n, seq, action, class)) = refused {
            let at = outcome.call_sites.get(n).copied().flatten();
            json["refused"] = json!({
                "seq": seq,
                "action": action,
                "class": class,
                "line": at.map(|(line, _)| line),
                "column": at.map(|(_, column)| column),
            });
        }
    }
    Ok(Page {
        title: format!("Replay of {run_id}"),
        nav: "/runs",
        body: String::new(),
        json,
    })
}
