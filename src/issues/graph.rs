//! Dependency-graph algorithms: cycles over blocking edges with a deterministic
//! path, reachability for refusing a cycle-making edge, and premath's "any
//! cycle" search over every edge (`dep diagnostics`' `integrity`).

use super::store::Store;
use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

/// The dependency graph (blocking edges, or every edge) restricted to the
/// issues `include` admits (by winning line).
struct Graph<'s> {
    ids: Vec<&'s str>,
    /// Successors (issue → issues it depends on), sorted by id for determinism.
    succ: Vec<Vec<usize>>,
}

impl<'s> Graph<'s> {
    fn build(store: &'s Store<'_>, include: impl Fn(&super::model::Issue<'_>) -> bool) -> Self {
        Self::build_with(store, include, true)
    }

    fn build_with(
        store: &'s Store<'_>,
        include: impl Fn(&super::model::Issue<'_>) -> bool,
        blocking_only: bool,
    ) -> Self {
        let mut ids: Vec<&'s str> = store
            .issues()
            .filter(|i| include(i))
            .map(|i| i.id.as_str())
            .collect();
        ids.sort_unstable();
        let pos: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        let mut succ = vec![Vec::new(); ids.len()];
        for (n, id) in ids.iter().enumerate() {
            let issue = store.get(id).expect("id came from the store");
            for dep in issue.deps.iter().filter(|d| d.blocking || !blocking_only) {
                if let Some(&m) = pos.get(dep.depends_on.as_str()) {
                    succ[n].push(m);
                }
            }
            succ[n].sort_unstable();
            succ[n].dedup();
        }
        Graph { ids, succ }
    }

    /// Strongly connected components (iterative Tarjan, so deep chains cannot
    /// overflow the stack).
    fn sccs(&self) -> Vec<Vec<usize>> {
        let n = self.ids.len();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0usize; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut out = Vec::new();
        let mut next = 0usize;
        for root in 0..n {
            if index[root] != usize::MAX {
                continue;
            }
            let mut frames: Vec<(usize, usize)> = vec![(root, 0)];
            index[root] = next;
            low[root] = next;
            next += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some(top) = frames.last_mut() {
                let v = top.0;
                if top.1 < self.succ[v].len() {
                    let w = self.succ[v][top.1];
                    top.1 += 1;
                    if index[w] == usize::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        frames.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                } else {
                    frames.pop();
                    if let Some(&(parent, _)) = frames.last() {
                        low[parent] = low[parent].min(low[v]);
                    }
                    if low[v] == index[v] {
                        let mut comp = Vec::new();
                        loop {
                            let w = stack.pop().expect("tarjan stack holds the component");
                            on_stack[w] = false;
                            comp.push(w);
                            if w == v {
                                break;
                            }
                        }
                        out.push(comp);
                    }
                }
            }
        }
        out
    }

    /// Shortest path `from → … → to` by BFS with sorted successors, within `allowed`.
    fn shortest_path(
        &self,
        from: usize,
        to: usize,
        allowed: &dyn Fn(usize) -> bool,
    ) -> Option<Vec<usize>> {
        let mut prev: HashMap<usize, usize> = HashMap::default();
        let mut queue = VecDeque::from([from]);
        let mut seen = vec![false; self.ids.len()];
        seen[from] = true;
        while let Some(v) = queue.pop_front() {
            for &w in &self.succ[v] {
                if w == to {
                    let mut path = vec![to, v];
                    let mut cur = v;
                    while cur != from {
                        cur = prev[&cur];
                        path.push(cur);
                    }
                    path.reverse();
                    return Some(path);
                }
                if !seen[w] && allowed(w) {
                    seen[w] = true;
                    prev.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        None
    }
}

/// Every cycle among the blocking edges of the admitted issues, one per strongly
/// connected component: the shortest cycle through the component's smallest id,
/// written `[a, b, …, a]`. Self-loops appear as `[a, a]`. Sorted by first id.
pub fn blocking_cycles(
    store: &Store<'_>,
    include: impl Fn(&super::model::Issue<'_>) -> bool,
) -> Vec<Vec<String>> {
    let g = Graph::build(store, include);
    let mut cycles = Vec::new();
    for comp in g.sccs() {
        let start = *comp.iter().min().expect("components are non-empty");
        if comp.len() == 1 && !g.succ[start].contains(&start) {
            continue;
        }
        let mut member = vec![false; g.ids.len()];
        for &c in &comp {
            member[c] = true;
        }
        let path = g
            .shortest_path(start, start, &|w| member[w])
            .expect("a component with an edge has a cycle");
        cycles.push(
            path.into_iter()
                .map(|i| g.ids[i].to_string())
                .collect::<Vec<_>>(),
        );
    }
    cycles.sort();
    cycles
}

/// If `issue` depended on `depends_on` through a blocking edge, the cycle that
/// edge would close, as `[issue, depends_on, …, issue]`.
pub fn cycle_if_added(store: &Store<'_>, issue: &str, depends_on: &str) -> Option<Vec<String>> {
    if issue == depends_on {
        return Some(vec![issue.to_string(), issue.to_string()]);
    }
    let g = Graph::build(store, |_| true);
    let from = g.ids.binary_search(&depends_on).ok()?;
    let to = g.ids.binary_search(&issue).ok()?;
    let path = g.shortest_path(from, to, &|_| true)?;
    let mut out = vec![issue.to_string()];
    out.extend(path.into_iter().map(|i| g.ids[i].to_string()));
    Some(out)
}

/// premath's `find_any_dependency_cycle_in_scope`: over every edge type among
/// the admitted issues, the first issue in id (byte) order with an edge (in
/// target order) whose target reaches back to it, written
/// `[issue, target, …, issue]` with the BFS path (sorted successors); a
/// self-loop is `[a, a]`. Only issues on a cycle are searched, and only within
/// their strongly connected component, which finds the same path: a node
/// outside the component can never lead back.
/// premath's `integrity` member: `{cyclePath, hasCycle}` over the issues
/// `include` admits (see [`first_cycle_path`]).
pub fn integrity(
    store: &Store<'_>,
    include: impl Fn(&super::model::Issue<'_>) -> bool,
) -> serde_json::Value {
    crate::host::payload_json(&Integrity::of(store, include))
}

/// premath's integrity: its first cycle over every edge type, if any.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Integrity {
    /// `null` without a cycle.
    pub cycle_path: Option<Vec<String>>,
    pub has_cycle: bool,
}

impl Integrity {
    /// The integrity of the issues `include` admits.
    pub fn of(store: &Store<'_>, include: impl Fn(&super::model::Issue<'_>) -> bool) -> Self {
        let cycle_path = first_cycle_path(store, include);
        Integrity {
            has_cycle: cycle_path.is_some(),
            cycle_path,
        }
    }
}

pub fn first_cycle_path(
    store: &Store<'_>,
    include: impl Fn(&super::model::Issue<'_>) -> bool,
) -> Option<Vec<String>> {
    let g = Graph::build_with(store, include, false);
    let mut comp_of = vec![0usize; g.ids.len()];
    let mut cyclic = Vec::new();
    for (c, comp) in g.sccs().into_iter().enumerate() {
        for &v in &comp {
            comp_of[v] = c;
        }
        cyclic.push(comp.len() > 1 || g.succ[comp[0]].contains(&comp[0]));
    }
    for n in 0..g.ids.len() {
        if !cyclic[comp_of[n]] {
            continue;
        }
        for &m in &g.succ[n] {
            if comp_of[m] != comp_of[n] {
                continue;
            }
            let path = if m == n {
                Some(vec![m])
            } else {
                g.shortest_path(m, n, &|w| comp_of[w] == comp_of[n])
            };
            if let Some(path) = path {
                let mut out = vec![g.ids[n].to_string()];
                out.extend(path.into_iter().map(|i| g.ids[i].to_string()));
                return Some(out);
            }
        }
    }
    None
}
