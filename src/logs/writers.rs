//! Which process writes a log's runs, so that a run whose process died is
//! closed (issue 61). A process that writes runs to a log file holds a
//! **writer marker**, `writer-<id>.json` in the directory its caller names
//! (the issue store's journal directory, so that the store's recovery
//! settles its calls' journals before it closes their runs), locked
//! (`flock`) for as long as it lives, and names it in each run's header
//! (`writer`). The marker names the log and holds the footer that closes a
//! run of a writer that died. [`close_dead`] finds markers nobody holds:
//! their runs without a footer get that footer (`recovered: true`, chained
//! to the run's last row), and the marker goes. A process that ends cleanly
//! removes its markers ([`release_all`]); one killed leaves them.
//!
//! Also here, what recovery needs of a log as lines of JSON: a run's rows
//! ([`run_rows`]), appending whole lines after a torn tail ([`append`]),
//! sealing a footer ([`seal`]).

use fs4::FileExt;
use serde_json::Value;
use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A marker file's `kind`.
pub const KIND: &str = "tusk.log_writer.v0";

/// A marker file's name starts so.
pub const PREFIX: &str = "writer-";

/// This process's markers: the directory and log, the marker's path and
/// id, and the open (locked) file.
type Marker = ((PathBuf, PathBuf), PathBuf, String, File);
static MARKERS: Mutex<Vec<Marker>> = Mutex::new(Vec::new());

/// This process's writer id for `log` with its marker in `dir`, the marker
/// made (and locked) on the first call; `footer` is what closes a run of it
/// if the process dies.
///
/// # Errors
/// The marker could not be written.
pub fn writer_id(dir: &Path, log: &Path, footer: &Value) -> std::io::Result<String> {
    let key = (dir.to_path_buf(), log.to_path_buf());
    let mut markers = MARKERS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, id, _)) = markers.iter().find(|(k, ..)| *k == key) {
        return Ok(id.clone());
    }
    fs::create_dir_all(dir)?;
    let id = format!("{}-{}", std::process::id(), random_hex());
    let path = dir.join(format!("{PREFIX}{id}.json"));
    let mut file = crate::files::open(fs::OpenOptions::new().create_new(true).write(true), &path)?;
    FileExt::lock(&file)?;
    let marker = serde_json::json!({
        "kind": KIND,
        "writer": id,
        "log": std::path::absolute(log)?,
        "footer": footer,
    });
    file.write_all(marker.to_string().as_bytes())?;
    markers.push((key, path, id.clone(), file));
    Ok(id)
}

fn random_hex() -> String {
    let mut bytes = [0u8; 8];
    // The pid is in the id too: a failed draw still names this process.
    let _ = getrandom::fill(&mut bytes);
    crate::canonical::hex(&bytes)
}

/// Removes this process's markers (and its writers on databases,
/// [`crate::pg::writers::unregister_all`]): it ends, and every run it wrote
/// ended with its footer.
pub fn release_all() {
    crate::pg::writers::unregister_all();
    let mut markers = MARKERS.lock().unwrap_or_else(|e| e.into_inner());
    for (_, path, _, file) in markers.drain(..) {
        let _ = fs::remove_file(&path);
        drop(file);
    }
}

/// Closes the runs whose writer died, of the markers in `dir`: the run
/// ids closed.
///
/// # Errors
/// A log could not be read or written (its marker is kept).
pub fn close_dead(dir: &Path) -> Result<Vec<String>, String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut closed = Vec::new();
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if !name.starts_with(PREFIX) || !name.ends_with(".json") {
            continue;
        }
        let Ok(file) = crate::files::open(fs::OpenOptions::new().read(true), &path) else {
            continue;
        };
        if FileExt::try_lock(&file).is_err() {
            continue; // held: its writer lives (or another closer is at it)
        }
        let marker = crate::files::read_to_string(&path, crate::files::CONFIG_MAX)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        // A marker cut short died while it was made: it named no run yet.
        let Some(marker) = marker.filter(|m| m["kind"] == KIND) else {
            let _ = fs::remove_file(&path);
            continue;
        };
        let writer = marker["writer"].as_str().unwrap_or_default();
        let log = PathBuf::from(marker["log"].as_str().unwrap_or_default());
        let log = log.as_path();
        // A marker is input (a cloned directory may carry one): only a log
        // beside the directory's owner (the store) is ever written to.
        let home = std::path::absolute(dir)
            .ok()
            .and_then(|d| d.parent().map(Path::to_path_buf));
        if home.is_none() || log.parent() != home.as_deref() {
            let _ = fs::remove_file(&path);
            return Err(format!(
                "{}: it names the log {}, outside {}; dropped, nothing written",
                path.display(),
                log.display(),
                home.unwrap_or_default().display()
            ));
        }
        let footer = &marker["footer"];
        let end_kind = footer["kind"].as_str().unwrap_or_default();
        let open =
            open_runs(log, writer, end_kind).map_err(|e| format!("{}: {e}", log.display()))?;
        for (run_id, last) in open {
            let line = seal(footer, &run_id, &last);
            append(log, &line, false).map_err(|e| format!("{}: {e}", log.display()))?;
            closed.push(run_id);
        }
        let _ = fs::remove_file(&path);
    }
    Ok(closed)
}

/// The runs of `writer` in `log` without a footer, each with its last
/// row's digest.
fn open_runs(log: &Path, writer: &str, end_kind: &str) -> std::io::Result<Vec<(String, String)>> {
    let mut runs: Vec<(String, String, bool)> = Vec::new();
    // The writer's id finds its headers; their run ids, every later row.
    let mut needles = vec![writer.to_string()];
    for_rows(log, &mut needles, |needles, line, row| {
        let Some(run_id) = row.get("runId").and_then(Value::as_str) else {
            return;
        };
        let digest = crate::chain::row_digest(line);
        if row.get("writer").and_then(Value::as_str) == Some(writer) {
            runs.push((run_id.to_string(), digest, false));
            needles.push(run_id.to_string());
        } else if let Some(run) = runs.iter_mut().find(|(id, ..)| id == run_id) {
            run.1 = digest;
            run.2 |= row.get("kind").and_then(Value::as_str) == Some(end_kind);
        }
    })?;
    Ok(runs
        .into_iter()
        .filter(|(_, _, ended)| !ended)
        .map(|(id, last, _)| (id, last))
        .collect())
}

/// Calls `f` with each row of `log` (its line and value) whose line holds
/// one of `needles` (which `f` may add to), reading the whole log once: a
/// byte search first, most rows being other runs'. A row torn by a kill,
/// or an absent log, gives nothing.
///
/// # Errors
/// The log could not be read.
pub fn for_rows(
    log: &Path,
    needles: &mut Vec<String>,
    mut f: impl FnMut(&mut Vec<String>, &[u8], &Value),
) -> std::io::Result<()> {
    let bytes = match crate::files::read(log) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for line in bytes.split(|b| *b == b'\n') {
        let wanted = !line.is_empty()
            && needles
                .iter()
                .any(|n| memchr::memmem::find(line, n.as_bytes()).is_some());
        if !wanted {
            continue;
        }
        if let Ok(row) = serde_json::from_slice::<Value>(line) {
            f(needles, line, &row);
        }
    }
    Ok(())
}

/// What `log` holds of run `run_id`: its last row's digest, whether a row
/// of kind `row_kind` has `seq`, and whether it has its footer.
#[derive(Default)]
pub struct RunRows {
    pub last_digest: Option<String>,
    pub has_call: bool,
    pub has_footer: bool,
}

/// [`RunRows`] of each `(run, seq)` of `wanted`, in its order, by reading
/// the whole log once (recovery only).
///
/// # Errors
/// The log could not be read (an absent one holds nothing).
pub fn runs_rows(
    log: &Path,
    wanted: &[(&str, usize)],
    row_kind: &str,
    end_kind: &str,
) -> std::io::Result<Vec<RunRows>> {
    let mut rows: Vec<RunRows> = wanted.iter().map(|_| RunRows::default()).collect();
    let mut needles = wanted.iter().map(|(id, _)| id.to_string()).collect();
    for_rows(log, &mut needles, |_, line, row| {
        let run_id = row.get("runId").and_then(Value::as_str);
        let kind = row.get("kind").and_then(Value::as_str);
        let seq = row.get("seq").and_then(Value::as_u64);
        for (r, (id, want)) in rows.iter_mut().zip(wanted) {
            if run_id != Some(*id) {
                continue;
            }
            r.last_digest = Some(crate::chain::row_digest(line));
            r.has_call |= kind == Some(row_kind) && seq == Some(*want as u64);
            r.has_footer |= kind == Some(end_kind);
        }
    })?;
    Ok(rows)
}

/// The footer `template` for run `run_id`, chained after `prev`, its chain
/// head computed: one line.
pub fn seal(template: &Value, run_id: &str, prev: &str) -> String {
    let mut footer = template.clone();
    if let Some(map) = footer.as_object_mut() {
        map.insert("runId".into(), Value::String(run_id.to_string()));
        map.insert(
            "finishedAt".into(),
            Value::String(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
        );
        map.insert("prevRowDigest".into(), Value::String(prev.to_string()));
    }
    let head = crate::chain::footer_head(&footer);
    if let Some(map) = footer.as_object_mut() {
        map.insert(crate::chain::HEAD.into(), Value::String(head));
    }
    footer.to_string()
}

/// Appends `lines` (no final newline) as whole lines, after a torn tail's
/// own line, and syncs; under the file's lock when `locked` (the
/// trajectory's writer takes it).
///
/// # Errors
/// The file could not be opened or written.
pub fn append(path: &Path, lines: &str, locked: bool) -> std::io::Result<()> {
    let mut file = super::open_append(path)?;
    if locked {
        FileExt::lock(&file)?;
    }
    let torn = super::ends_torn(&file)?;
    let mut text = Vec::with_capacity(lines.len() + 2);
    if torn {
        text.push(b'\n');
    }
    text.extend_from_slice(lines.as_bytes());
    text.push(b'\n');
    super::write_whole(&mut file, &text)?;
    file.sync_all()
}
