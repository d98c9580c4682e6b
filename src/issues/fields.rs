//! The issue field list, written once. `issue_fields!` declares a struct with
//! its own leading fields followed by the optional fields an issue can be
//! created or updated with; each field carries its doc comment (the command
//! line's help and the JSON Schema's description) and its flag. The structs it
//! makes: `mutate::NewIssue` (`issue.add`, `tusk issue add`), `mutate::IssueChanges`
//! (what `issue.update` changes), and the argument types of `issue.discover` and
//! `issue.update`. serde cannot flatten a struct into one that denies unknown
//! members, so the fields are spliced in rather than nested.

/// Declares `pub struct NAME { leading fields…, the issue fields }`; with
/// `move SRC into TYPE { … }`, moves the issue fields of `SRC` into a `TYPE`
/// literal (the compiler checks that both arms name the same fields).
macro_rules! issue_fields {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
            /// What the issue is about.
            #[arg(long)]
            pub description: Option<String>,
            /// How it is to be done.
            #[arg(long)]
            pub design: Option<String>,
            /// When it is done (premath's `issue check` wants an `Acceptance:` section
            /// in the description of active issues).
            #[arg(long)]
            pub acceptance_criteria: Option<String>,
            /// Working notes.
            #[arg(long)]
            pub notes: Option<String>,
            /// open, in_progress, blocked, deferred or closed.
            #[arg(long)]
            pub status: Option<String>,
            /// 0 (highest) to 4.
            #[arg(long)]
            pub priority: Option<i64>,
            /// task, bug, feature, epic or chore.
            #[arg(long, visible_alias = "type")]
            pub issue_type: Option<String>,
            /// Who works on it.
            #[arg(long)]
            pub assignee: Option<String>,
            /// The issue's owner (beads' `owner`; not the lease holder); empty clears it.
            #[arg(long)]
            pub owner: Option<String>,
            /// Labels (comma-separated on the command line); on update they replace the list.
            #[arg(long, value_delimiter = ',')]
            pub labels: Option<Vec<String>>,
        }
    };
    (move $src:ident into $target:ident { $($k:ident : $v:expr),* $(,)? }) => {
        $target {
            $($k: $v,)*
            description: $src.description,
            design: $src.design,
            acceptance_criteria: $src.acceptance_criteria,
            notes: $src.notes,
            status: $src.status,
            priority: $src.priority,
            issue_type: $src.issue_type,
            assignee: $src.assignee,
            owner: $src.owner,
            labels: $src.labels,
        }
    };
}

pub(crate) use issue_fields;
