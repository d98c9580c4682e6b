//! premath's MCP tools with a tusk twin (`tusk mcp --premath-tools`): one
//! table, `MCP_TOOLS`, of names, descriptions, arguments, effects and the
//! function each runs.

use super::*;

/// What one of premath's tools does, and how tusk's gate admits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Read,
    /// A mutation premath mediates by an instruction witness: premath's
    /// action id (its capability claim and messages name it, and tusk's
    /// policy governs the tool as that tusk mutation); `join`: premath also
    /// needs the witness's join gate closed.
    Mutation {
        action: &'static str,
        join: bool,
    },
    /// `init_tool`: lays out the server's root. premath asks no instruction
    /// for it; tusk admits it as `issue.add` (it creates the store that
    /// would), on the server's authority.
    Init,
}

/// One tool of premath's `mcp-serve` that tusk serves (`tusk mcp
/// --premath-tools`): premath's name, description and input schema, and the
/// premath-shaped action (`premath.<tool>`) a call runs as.
pub struct McpTool {
    pub name: &'static str,
    pub description: &'static str,
    /// The arguments besides `issues_path`, `instruction_id` and `root_path`:
    /// (premath's snake_case name, its camelCase alias, type). Types:
    /// `string`, `integer` (non-negative), `int` (any integer), `scope`.
    pub args: &'static [(&'static str, &'static str, &'static str)],
    /// The arguments premath requires, in its order.
    pub required: &'static [&'static str],
    pub effect: Effect,
    /// What a call does (the `premath.<tool>` action's body).
    pub(super) run: fn(&ActionContext<'_>, &Value) -> Result<ActionOutcome, ActionError>,
}

/// A tool call's arguments, sorted out.
pub struct ToolArgs {
    /// The action's arguments (camelCase).
    pub args: Map<String, Value>,
    /// premath's `instruction_id`, when given and not blank.
    pub instruction_id: Option<String>,
}

impl McpTool {
    /// The action a call of this tool runs as.
    pub fn action_id(&self) -> String {
        format!("premath.{}", self.name)
    }

    /// premath's input schema (as its SDK derives it).
    pub fn input_schema(&self) -> Value {
        let nullable_string = json!({"nullable": true, "type": "string"});
        let mut properties = Map::new();
        if self.effect == Effect::Init {
            properties.insert("root_path".into(), nullable_string.clone());
        } else {
            properties.insert("issues_path".into(), nullable_string.clone());
        }
        if matches!(self.effect, Effect::Mutation { .. }) {
            properties.insert("instruction_id".into(), nullable_string);
        }
        for (name, _, ty) in self.args {
            let json_type = if matches!(*ty, "int" | "integer") {
                "integer"
            } else {
                "string"
            };
            let schema = if *ty == "scope" {
                json!({"oneOf": [{"enum": ["Active"]}, {"enum": ["Full"]}]})
            } else if self.required.contains(name) {
                json!({"type": json_type})
            } else {
                json!({"nullable": true, "type": json_type})
            };
            properties.insert(name.to_string(), schema);
        }
        let mut schema = json!({"properties": properties, "type": "object"});
        if !self.required.is_empty() {
            schema["required"] = json!(self.required);
        }
        schema
    }

    /// Sorts a call's arguments (premath's snake_case names or camelCase
    /// aliases) into the action's. `issues_path` may only name the served
    /// store (`served`) and `root_path` the server's directory: a tusk
    /// program never chooses a file.
    ///
    /// # Errors
    /// A missing required argument, one of the wrong type, or another store
    /// or root named.
    pub fn action_args(
        &self,
        given: &Map<String, Value>,
        served: &str,
    ) -> Result<ToolArgs, String> {
        let mut out = ToolArgs {
            args: Map::new(),
            instruction_id: None,
        };
        for (key, value) in given {
            if value.is_null() {
                continue;
            }
            match key.as_str() {
                "issues_path" | "issuesPath" if self.effect != Effect::Init => {
                    let named = value.as_str().unwrap_or_default();
                    if !same_file(named, served) {
                        return Err(format!(
                            "issues_path `{named}`: this server serves one issue store, {served}; \
                             name it or leave issues_path out"
                        ));
                    }
                    continue;
                }
                "root_path" | "rootPath" if self.effect == Effect::Init => {
                    let named = value.as_str().unwrap_or_default();
                    if !named.trim().is_empty() && !same_file(named, ".") {
                        return Err(format!(
                            "root_path `{named}`: this server lays out its own directory only; \
                             name it or leave root_path out"
                        ));
                    }
                    continue;
                }
                "instruction_id" | "instructionId"
                    if matches!(self.effect, Effect::Mutation { .. }) =>
                {
                    let Some(id) = value.as_str() else {
                        return Err(format!("{key}: expected a string"));
                    };
                    out.instruction_id = non_empty(Some(id)).map(|_| id.to_string());
                    continue;
                }
                _ => {}
            }
            let Some((_, camel, ty)) = self
                .args
                .iter()
                .find(|(snake, camel, _)| key == snake || key == camel)
            else {
                // premath's tools ignore members they do not know.
                continue;
            };
            let value = match *ty {
                "scope" => match value.as_str().map(str::to_ascii_lowercase).as_deref() {
                    Some(s @ ("active" | "full")) => json!(s),
                    _ => return Err(format!("{key}: expected `active` or `full`")),
                },
                "integer" if !value.is_u64() => {
                    return Err(format!("{key}: expected a non-negative integer"))
                }
                "int" if !value.is_i64() => return Err(format!("{key}: expected an integer")),
                "string" if !value.is_string() => return Err(format!("{key}: expected a string")),
                _ => value.clone(),
            };
            out.args.insert(camel.to_string(), value);
        }
        for name in self.required {
            let camel = self
                .args
                .iter()
                .find(|(snake, _, _)| snake == name)
                .map_or(*name, |(_, camel, _)| *camel);
            if *name != "graph_scope" && !out.args.contains_key(camel) {
                return Err(format!("missing field `{camel}`"));
            }
        }
        Ok(out)
    }
}

/// Whether two names a caller gave name the same file (or directory).
pub(super) fn same_file(named: &str, served: &str) -> bool {
    crate::files::same_file(std::path::Path::new(named), std::path::Path::new(served))
}

pub(super) const ISSUES_PATH_ONLY: &[(&str, &str, &str)] = &[];
pub(super) const NEW_ISSUE: &[(&str, &str, &str)] = &[
    ("title", "title", "string"),
    ("id", "id", "string"),
    ("description", "description", "string"),
    ("status", "status", "string"),
    ("priority", "priority", "int"),
    ("issue_type", "issueType", "string"),
    ("assignee", "assignee", "string"),
    ("owner", "owner", "string"),
];
pub(super) const LEASE_TERM: &[(&str, &str, &str)] = &[
    ("id", "id", "string"),
    ("assignee", "assignee", "string"),
    ("lease_id", "leaseId", "string"),
    ("lease_ttl_seconds", "leaseTtlSeconds", "int"),
    ("lease_expires_at", "leaseExpiresAt", "string"),
];

/// premath's tools with a tusk twin that `tusk mcp --premath-tools` serves,
/// in premath's order.
pub const MCP_TOOLS: [McpTool; 17] = [
    McpTool {
        name: "issue_ready",
        description: "List open issues that have no unresolved blocking dependencies",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Read,
        run: mcp_ready,
    },
    McpTool {
        name: "issue_list",
        description: "List issues with optional status/assignee filtering",
        args: &[("status", "status", "string"), ("assignee", "assignee", "string")],
        required: &[],
        effect: Effect::Read,
        run: mcp_list,
    },
    McpTool {
        name: "issue_check",
        description: "Run deterministic issue-graph contract checks",
        args: &[("note_warn_threshold", "noteWarnThreshold", "integer")],
        required: &[],
        effect: Effect::Read,
        run: mcp_check,
    },
    McpTool {
        name: "issue_backend_status",
        description: "Report issue backend integration state (jsonl authority, surreal projection, jj)",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Read,
        run: mcp_backend_status,
    },
    McpTool {
        name: "issue_blocked",
        description: "List non-closed issues that are explicitly blocked or have unresolved blocking dependencies",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Read,
        run: mcp_blocked,
    },
    McpTool {
        name: "issue_add",
        description: "Add an issue to the JSONL substrate",
        args: NEW_ISSUE,
        required: &["title"],
        effect: Effect::Mutation {
            action: "issue.add",
            join: false,
        },
        run: mcp_issue_add,
    },
    McpTool {
        name: "issue_claim",
        description: "Atomically claim an issue for work (sets assignee + in_progress)",
        args: LEASE_TERM,
        required: &["id", "assignee"],
        effect: Effect::Mutation {
            action: "issue.claim",
            join: false,
        },
        run: mcp_claim,
    },
    McpTool {
        name: "issue_lease_renew",
        description: "Renew an active issue lease by id/assignee/lease_id",
        args: LEASE_TERM,
        required: &["id", "assignee", "lease_id"],
        effect: Effect::Mutation {
            action: "issue.lease_renew",
            join: false,
        },
        run: mcp_lease_renew,
    },
    McpTool {
        name: "issue_lease_release",
        description: "Release an issue lease by id (optionally validating assignee/lease_id)",
        args: &[
            ("id", "id", "string"),
            ("assignee", "assignee", "string"),
            ("lease_id", "leaseId", "string"),
        ],
        required: &["id"],
        effect: Effect::Mutation {
            action: "issue.lease_release",
            join: false,
        },
        run: mcp_lease_release,
    },
    McpTool {
        name: "issue_discover",
        description: "Create a follow-up issue and link it with discovered-from dependency",
        args: &[
            ("parent_issue_id", "parentIssueId", "string"),
            ("title", "title", "string"),
            ("id", "id", "string"),
            ("description", "description", "string"),
            ("priority", "priority", "int"),
            ("issue_type", "issueType", "string"),
            ("assignee", "assignee", "string"),
            ("owner", "owner", "string"),
        ],
        required: &["parent_issue_id", "title"],
        effect: Effect::Mutation {
            action: "issue.discover",
            join: true,
        },
        run: mcp_issue_discover,
    },
    McpTool {
        name: "issue_update",
        description: "Update mutable issue fields by id",
        args: &[
            ("id", "id", "string"),
            ("title", "title", "string"),
            ("description", "description", "string"),
            ("notes", "notes", "string"),
            ("status", "status", "string"),
            ("priority", "priority", "int"),
            ("assignee", "assignee", "string"),
            ("owner", "owner", "string"),
        ],
        required: &["id"],
        effect: Effect::Mutation {
            action: "issue.update",
            join: true,
        },
        run: mcp_issue_update,
    },
    McpTool {
        name: "dep_add",
        description: "Add a dependency edge between issues",
        args: &[
            ("issue_id", "issueId", "string"),
            ("depends_on_id", "dependsOnId", "string"),
            ("dep_type", "depType", "string"),
            ("created_by", "createdBy", "string"),
        ],
        required: &["issue_id", "depends_on_id"],
        effect: Effect::Mutation {
            action: "dep.add",
            join: true,
        },
        run: mcp_dep_add,
    },
    McpTool {
        name: "dep_remove",
        description: "Remove a dependency edge between issues",
        args: &[
            ("issue_id", "issueId", "string"),
            ("depends_on_id", "dependsOnId", "string"),
            ("dep_type", "depType", "string"),
        ],
        required: &["issue_id", "depends_on_id"],
        effect: Effect::Mutation {
            action: "dep.remove",
            join: true,
        },
        run: mcp_dep_remove,
    },
    McpTool {
        name: "dep_replace",
        description: "Replace one dependency edge type with another",
        args: &[
            ("issue_id", "issueId", "string"),
            ("depends_on_id", "dependsOnId", "string"),
            ("from_dep_type", "fromDepType", "string"),
            ("to_dep_type", "toDepType", "string"),
            ("created_by", "createdBy", "string"),
        ],
        required: &["issue_id", "depends_on_id", "to_dep_type"],
        effect: Effect::Mutation {
            action: "dep.replace",
            join: true,
        },
        run: mcp_dep_replace,
    },
    McpTool {
        name: "dep_diagnostics",
        description: "Report dependency graph cycle diagnostics for active or full graph scope",
        args: &[("graph_scope", "graphScope", "scope")],
        required: &["graph_scope"],
        effect: Effect::Read,
        run: mcp_diagnostics,
    },
    McpTool {
        name: "init_tool",
        description: "Initialize premath local substrate (.premath/issues.jsonl), migrating legacy .beads store when present",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Init,
        run: mcp_init,
    },
    McpTool {
        name: "issue_lease_projection",
        description: "Return deterministic lease projection for stale/contended claims",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Read,
        run: mcp_lease_projection,
    },
];
