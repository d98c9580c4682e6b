//! The reading commands of `tusk issue`: the list views printed straight
//! from their items, the reports with a host twin, `issue show` and
//! `issue history`. On a database each view reads by index what it can
//! (issue 58, `issues::pg_reads`).

use super::*;

/// `issue list`, `ready` and `blocked`, printed straight from their items
/// (the views the host actions' payloads are made of).
pub(super) fn list_command(
    opts: &Opts,
    command: IssueCommand,
    now: DateTime<Utc>,
) -> Result<Exit, CliError> {
    match command {
        IssueCommand::List(mut a) => {
            let action = "issue.list";
            let routing = checked_flags(opts, action, a.filter.take())?;
            if let Some(Err((class, message))) = a
                .status
                .as_deref()
                .map(|s| crate::issues::mutate::check_status(&opts.store, s))
            {
                return Err(refused_flag(opts, action, class, &message));
            }
            let filter = a.list_filter(routing);
            // On a database, just the lines that may be listed (a read by index).
            let text = match opts.store.list_text(&filter) {
                Ok(Some(text)) => Ok(text),
                Ok(None) => opts.store.read_text(),
                Err(e) => Err(e),
            };
            print_list_of(opts, action, text, |s, p| {
                views::list_view(s, p, &filter, now)
            })
        }
        IssueCommand::Ready(a) => {
            let action = "issue.ready";
            let filter = checked_flags(opts, action, a.filter)?;
            // On a database, just the ready lines (a read by index).
            match opts.store.ready_text(&filter) {
                Ok(Some(text)) => print_list_of(opts, action, Ok(text), |s, p| {
                    views::ready_view_known(s, p, &filter, now)
                }),
                Ok(None) => print_list(opts, action, |s, p| views::ready_view(s, p, &filter, now)),
                Err(e) => finish(opts, action, Err(e)),
            }
        }
        IssueCommand::Blocked(a) => {
            let action = "issue.blocked";
            let filter = checked_flags(opts, action, a.filter)?;
            // On a database, the blocked lines and their targets' (a read by index).
            match opts.store.blocked_text(&filter) {
                Ok(Some((text, only))) => print_list_of(opts, action, Ok(text), |s, p| {
                    views::blocked_view_known(s, p, &filter, now, &only)
                }),
                Ok(None) => {
                    print_list(opts, action, |s, p| views::blocked_view(s, p, &filter, now))
                }
                Err(e) => finish(opts, action, Err(e)),
            }
        }
        _ => unreachable!("list_command takes the list commands"),
    }
}

/// The reading commands with a host twin.
pub(super) fn read_report(opts: &Opts, command: IssueCommand, now: DateTime<Utc>) -> Outcome {
    let path = opts.store.path().display().to_string();
    let path = path.as_str();
    Ok(match command {
        IssueCommand::LeaseProjection(a) => {
            let filter = checked_flags(opts, "issue.lease_projection", a.filter)?;
            let backend = crate::issues::projection::backend_name(&opts.store);
            (
                "issue.lease_projection",
                // On a database, just the lines that may hold a lease.
                read_view_of(opts, opts.store.leased_text(), |s| {
                    crate::issues::projection::lease_projection_payload(
                        s, path, backend, &filter, now,
                    )
                }),
            )
        }
        IssueCommand::Check(a) => (
            "issue.check",
            issue_check::commands_of(&opts.store).and_then(|commands| {
                read_view(opts, |s| issue_check::view(s, path, now, &a, &commands))
            }),
        ),
        IssueCommand::Search(a) => (
            "issue.search",
            // On a database, just the lines that may hold the query.
            read_view_of(opts, opts.store.search_text(&a.query), |s| {
                issue_search::view(s, path, &a)
            }),
        ),
        IssueCommand::Stats => (
            "issue.stats",
            // On a database, counted by its columns.
            match opts.store.stats_counts() {
                Ok(Some((counts, leased))) => read_view_of(opts, Ok(Some(leased)), |s| {
                    find::stats_payload_known(s, path, now, counts)
                }),
                Ok(None) => read_view(opts, |s| find::stats_payload(s, path, now)),
                Err(e) => Err(e),
            },
        ),
        IssueCommand::Comment {
            command: CommentCommand::List(IdArgs { id }),
        } => (
            "issue.comments",
            opts.store.read_scoped(Footprint::Issue(&id), |s| {
                tracker::comments_payload(s, path, &id)
            }),
        ),
        _ => unreachable!("read_report takes the commands read_action names"),
    })
}

/// `issue history ID`: the page, as JSON or one line per entry.
pub(super) fn history(
    flags: &StoreOpts,
    opts: &Opts,
    id: &str,
    after: usize,
    limit: usize,
    effects: Option<&Path>,
) -> Result<Exit, CliError> {
    let unusable = |e: String| CliError::unusable("tusk: issue history", e);
    let log = flags
        .store
        .log(
            crate::pg::LogTable::Effects,
            effects,
            Path::new(".premath/host_effects.jsonl"),
        )
        .map_err(unusable)?;
    let page = crate::history::history(&log, id, after, limit).map_err(unusable)?;
    if opts.json {
        println!("{}", to_pretty_sorted(&page.to_json(id)));
        return Ok(Exit::Accepted);
    }
    let mut out = format!("{id}: {} change(s)\n", page.total);
    for e in &page.entries {
        out.push_str(&crate::history::entry_line(e));
        out.push('\n');
    }
    if let Some(next) = page.next_after {
        out.push_str(&format!("… more: tusk issue history {id} --after {next}\n"));
    }
    print!(
        "{}",
        crate::terminal::lines(&out).collect::<Vec<_>>().join("\n") + "\n"
    );
    Ok(Exit::Accepted)
}

/// `issue show`: the host action's payload with the issue in its camelCase
/// projection under `--json` (the text reads the payload as is), or with
/// `--raw` the issue's line as stored, byte for byte. An unknown id is
/// rejected as the host action rejects it.
pub(super) fn show(opts: &Opts, id: &str, raw: bool, now: DateTime<Utc>) -> Result<Exit, CliError> {
    let path = opts.store.path().display().to_string();
    let mut line = None;
    // The issue and its blockers' lines (a read by index on a database).
    let result = opts.store.read_scoped(Footprint::WithTargets(id), |s| {
        line = s.get(id).map(|issue| s.raw(issue).to_string());
        views::show_payload(s, &path, id, now)
    });
    match (result, line) {
        (Ok(report), Some(line)) if raw && report.is_accepted() => {
            crate::cli::write_stdout(format!("{line}\n").as_bytes())?;
            Ok(Exit::Accepted)
        }
        (Ok(mut report), _) if opts.json && report.is_accepted() => {
            if let Some(Value::Object(stored)) = report.payload.get("issue") {
                let projected = crate::issues::projection::detail(stored);
                report.payload.insert("issue".into(), projected);
            }
            finish(opts, "issue.show", Ok(report))
        }
        (result, _) => finish(opts, "issue.show", result),
    }
}

/// `view` of the lines a database chose for it (`text`, a read by index),
/// or of the whole store when it could not tell (`None`).
fn read_view_of(
    opts: &Opts,
    text: Result<Option<String>, StoreError>,
    view: impl FnOnce(&Store<'_>) -> Report,
) -> Result<Report, StoreError> {
    match text? {
        Some(text) => Ok(view(&opts.store.parse(&text)?)),
        None => read_view(opts, view),
    }
}

pub(super) fn read_view(
    opts: &Opts,
    view: impl FnOnce(&Store<'_>) -> Report,
) -> Result<Report, StoreError> {
    let text = opts.store.read_text()?;
    let store = opts.store.parse(&text)?;
    Ok(view(&store))
}

/// Prints a list-shaped view straight from its typed items: the big views of a
/// 100k-issue store would otherwise spend more time building JSON values than
/// reading the store.
pub(super) fn print_list(
    opts: &Opts,
    action: &str,
    view: impl for<'s> FnOnce(&'s Store<'_>, &'s str) -> ListView<'s>,
) -> Result<Exit, CliError> {
    print_list_of(opts, action, opts.store.read_text(), view)
}

/// [`print_list`] of a store text already read (all of it, or the lines a
/// database chose).
pub(super) fn print_list_of(
    opts: &Opts,
    action: &str,
    text: Result<String, StoreError>,
    view: impl for<'s> FnOnce(&'s Store<'_>, &'s str) -> ListView<'s>,
) -> Result<Exit, CliError> {
    let path_str = opts.store.path().display().to_string();
    let text = match text {
        Ok(t) => t,
        Err(e) => return finish(opts, action, Err(e)),
    };
    let store = match opts.store.parse(&text) {
        Ok(s) => s,
        Err(e) => return finish(opts, action, Err(e)),
    };
    let mut view = view(&store, &path_str);
    // The twin of premath's command prints premath's item shapes exactly.
    for item in &mut view.items {
        item.premath_only = true;
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = if opts.json {
        serde_json::to_writer_pretty(&mut out, &view)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        write!(out, "{}", table(&view.items, action == "issue.blocked"))
            .and_then(|()| writeln!(out, "{} issue(s)", view.items.len()))
    };
    let flushed = written.and_then(|()| out.flush());
    // The process exits next: freeing a big store item by item would only cost time.
    std::mem::forget(view);
    std::mem::forget(store);
    std::mem::forget(text);
    match flushed {
        Ok(()) => Ok(Exit::Accepted),
        // A closed pipe (`| head`) is not a failure of the store.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Exit::Accepted),
        Err(e) => Err(CliError::unusable(format_args!("tusk: {action}"), e)),
    }
}
