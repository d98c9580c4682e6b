//! The dependency graph drawn as a layered SVG (issue 47, point 3): the
//! issue in the middle layer, what depends on it in the layers above (one
//! per step away), what it depends on in the layers below; an arrow from an
//! issue to what it depends on, labelled with the edge's type; an edge on a
//! cycle (its two ends in one strongly connected component of the edges
//! walked) dashed red and labelled `cycle`.
//!
//! It draws `dep tree`'s walk ([`crate::issues::find::tree_payload`]), so
//! it inherits its bounds (depth, nodes); it draws at most [`MAX_PER_LAYER`]
//! nodes a layer and says how many it left out. A node sits in the layer
//! of the shortest path the walk found to it; within a layer nodes are
//! ordered by the mean place of their neighbours in the layer nearer the
//! issue (one barycentre pass: few crossings on the trees this draws).
//! Every id, title and type is escaped like any other string on a page.

use super::html::{esc, url_part};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt::Write;

/// Nodes drawn per layer at most (a hub issue can have thousands).
pub const MAX_PER_LAYER: usize = 12;
const NODE_W: f64 = 176.0;
const NODE_H: f64 = 42.0;
const GAP_X: f64 = 24.0;
const LAYER_H: f64 = 96.0;
const MARGIN: f64 = 16.0;
/// Title characters in a node's tooltip (a stored title can be any length).
const TOOLTIP_CHARS: usize = 500;
/// Title characters shown in a node (the whole title is its tooltip).
const TITLE_CHARS: usize = 24;

/// One node placed.
struct Node {
    id: String,
    title: String,
    status: String,
    missing: bool,
    truncated: bool,
    layer: i64,
    x: f64,
    y: f64,
}

/// One edge: `from` depends on `to`.
#[derive(PartialEq, Eq, PartialOrd, Ord, Clone)]
struct Edge {
    from: String,
    to: String,
    dep_type: String,
    cycle: bool,
}

/// The graph of a `dep.tree` root: its nodes and edges, each node in the
/// layer of its shortest path from the root (breadth first).
fn collect(tree: &Value) -> (Vec<Node>, BTreeSet<Edge>) {
    let mut nodes: Vec<Node> = Vec::new();
    let mut placed: HashMap<String, usize> = HashMap::new();
    let mut edges = BTreeSet::new();
    let mut queue: VecDeque<(&Value, i64)> = VecDeque::from([(tree, 0)]);
    while let Some((n, layer)) = queue.pop_front() {
        let id = n["id"].as_str().unwrap_or("").to_string();
        if let Some(&at) = placed.get(&id) {
            nodes[at].truncated |= n["truncated"] == true;
            // A tree gives a title once, at the first appearance
            // depth first, which may come later breadth first.
            if let (true, Some(title)) = (nodes[at].title.is_empty(), n["title"].as_str()) {
                nodes[at].title = title.to_string();
            }
        } else {
            placed.insert(id.clone(), nodes.len());
            nodes.push(Node {
                id: id.clone(),
                title: n["title"].as_str().unwrap_or("").to_string(),
                status: n["status"].as_str().unwrap_or("missing").to_string(),
                missing: n["missing"] == true,
                truncated: n["truncated"] == true,
                layer,
                x: 0.0,
                y: 0.0,
            });
        }
        for c in n["children"].as_array().into_iter().flatten() {
            let other = c["id"].as_str().unwrap_or("").to_string();
            let up = c["direction"] == "up";
            let (from, to) = if up {
                (other, id.clone())
            } else {
                (id.clone(), other)
            };
            edges.insert(Edge {
                from,
                to,
                dep_type: c["type"].as_str().unwrap_or("").to_string(),
                cycle: false,
            });
            queue.push_back((c, if up { layer - 1 } else { layer + 1 }));
        }
    }
    // The walk meets an edge once per path to it, from either end.
    let cyclic = on_cycles(&edges);
    let edges = edges
        .into_iter()
        .map(|mut e| {
            e.cycle = cyclic.contains(&(e.from.clone(), e.to.clone()));
            e
        })
        .collect();
    (nodes, edges)
}

/// The edges whose ends share a strongly connected component (Kosaraju's
/// two passes, iterative: a walk can hold thousands of nodes).
fn on_cycles(edges: &BTreeSet<Edge>) -> BTreeSet<(String, String)> {
    let mut fwd: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut back: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in edges {
        fwd.entry(&e.from).or_default().push(&e.to);
        fwd.entry(&e.to).or_default();
        back.entry(&e.to).or_default().push(&e.from);
    }
    // First pass: nodes in order of finishing.
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut finished: Vec<&str> = Vec::new();
    for &start in fwd.keys() {
        if !seen.insert(start) {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        while let Some((n, i)) = stack.pop() {
            match fwd[n].get(i) {
                Some(&next) => {
                    stack.push((n, i + 1));
                    if seen.insert(next) {
                        stack.push((next, 0));
                    }
                }
                None => finished.push(n),
            }
        }
    }
    // Second pass, on the reversed edges, latest finished first.
    let mut component: HashMap<&str, usize> = HashMap::new();
    for (c, &start) in finished.iter().rev().enumerate() {
        if component.contains_key(start) {
            continue;
        }
        component.insert(start, c);
        let mut stack = vec![start];
        while let Some(n) = stack.pop() {
            for &prev in back.get(n).into_iter().flatten() {
                if !component.contains_key(prev) {
                    component.insert(prev, c);
                    stack.push(prev);
                }
            }
        }
    }
    edges
        .iter()
        .filter(|e| {
            e.from == e.to || component.get(e.from.as_str()) == component.get(e.to.as_str())
        })
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect()
}

/// Orders each layer (barycentre of the neighbours nearer the root), keeps
/// [`MAX_PER_LAYER`] of each, and places them; returns the nodes drawn, the
/// number left out per layer, and the drawing's width and height.
fn place(nodes: Vec<Node>, edges: &BTreeSet<Edge>) -> (Vec<Node>, BTreeMap<i64, usize>, f64, f64) {
    let mut layers: BTreeMap<i64, Vec<Node>> = BTreeMap::new();
    for n in nodes {
        layers.entry(n.layer).or_default().push(n);
    }
    let mut near: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in edges {
        near.entry(&e.from).or_default().push(&e.to);
        near.entry(&e.to).or_default().push(&e.from);
    }
    let mut order: HashMap<String, f64> = HashMap::new();
    let mut hidden = BTreeMap::new();
    // Outward from the root: below in increasing layers, above in decreasing.
    let mut keys: Vec<i64> = layers.keys().copied().filter(|l| *l >= 0).collect();
    keys.extend(layers.keys().copied().filter(|l| *l < 0).rev());
    for layer in keys {
        let list = layers.get_mut(&layer).expect("a layer that was listed");
        let rank = |n: &Node| {
            let placed: Vec<f64> = near
                .get(n.id.as_str())
                .into_iter()
                .flatten()
                .filter_map(|other| order.get(*other))
                .copied()
                .collect();
            if placed.is_empty() {
                f64::MAX
            } else {
                placed.iter().sum::<f64>() / placed.len() as f64
            }
        };
        let mut ranked: Vec<(f64, Node)> = list.drain(..).map(|n| (rank(&n), n)).collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
        if ranked.len() > MAX_PER_LAYER {
            hidden.insert(layer, ranked.len() - MAX_PER_LAYER);
            ranked.truncate(MAX_PER_LAYER);
        }
        for (i, (_, n)) in ranked.iter().enumerate() {
            order.insert(n.id.clone(), i as f64);
        }
        *list = ranked.into_iter().map(|(_, n)| n).collect();
    }
    let widest = layers.values().map(Vec::len).max().unwrap_or(1).max(3);
    let width = MARGIN * 2.0 + widest as f64 * (NODE_W + GAP_X) - GAP_X;
    let top = layers.keys().next().copied().unwrap_or(0);
    let mut drawn = Vec::new();
    for (layer, list) in layers {
        let row = width_of(list.len());
        let left = (width - row) / 2.0;
        for (i, mut n) in list.into_iter().enumerate() {
            n.x = left + i as f64 * (NODE_W + GAP_X);
            n.y = MARGIN + (layer - top) as f64 * LAYER_H;
            drawn.push(n);
        }
    }
    let bottom = drawn.iter().map(|n| n.y).fold(0.0, f64::max);
    (drawn, hidden, width, bottom + NODE_H + MARGIN + 18.0)
}

fn width_of(count: usize) -> f64 {
    count as f64 * (NODE_W + GAP_X) - GAP_X
}

/// The SVG of `tree` (a `dep.tree` root) and its JSON description (what was
/// drawn, for the page's JSON twin).
pub fn draw(tree: &Value) -> (String, Value) {
    let root = tree["id"].as_str().unwrap_or("").to_string();
    let (nodes, edges) = collect(tree);
    let (nodes, hidden, width, height) = place(nodes, &edges);
    let at: HashMap<&str, &Node> = nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let mut out = format!(
        "<figure class=\"graph\"><figcaption>Drawn: arrows point from an issue to what it depends on; \
         <span class=\"cycle-key\">red dashed</span>: an edge on a cycle</figcaption>\
         <svg id=\"dep-graph\" width=\"{width:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" aria-label=\"dependency graph of {}\">\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"arrowhead\"/></marker>\
         <marker id=\"arrow-cycle\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"arrowhead cycle\"/></marker></defs>",
        esc(&root)
    );
    let mut drawn_edges = Vec::new();
    let mut labels = String::new();
    for e in &edges {
        let (Some(a), Some(b)) = (at.get(e.from.as_str()), at.get(e.to.as_str())) else {
            continue;
        };
        let (path, label) = edge_svg(a, b, e);
        out.push_str(&path);
        labels.push_str(&label);
        drawn_edges.push(json!({"from": e.from, "to": e.to, "type": e.dep_type, "cycle": e.cycle}));
    }
    for n in &nodes {
        node_svg(&mut out, n, n.id == root);
    }
    out.push_str(&labels);
    for (layer, count) in &hidden {
        let y = nodes
            .iter()
            .find(|n| n.layer == *layer)
            .map_or(0.0, |n| n.y);
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"more\" text-anchor=\"end\">+{count} more (see the tree below)</text>",
            width - MARGIN,
            y + NODE_H + 14.0
        );
    }
    out.push_str("</svg></figure>");
    let description = json!({
        "nodes": nodes.iter().map(|n| json!({
            "id": n.id, "layer": n.layer, "status": n.status, "missing": n.missing,
        })).collect::<Vec<_>>(),
        "edges": drawn_edges,
        "hiddenPerLayer": hidden.iter().map(|(l, c)| json!({"layer": l, "count": c})).collect::<Vec<_>>(),
    });
    (out, description)
}

fn node_svg(out: &mut String, n: &Node, root: bool) {
    let mut class = format!("node status-{}", url_part(&n.status));
    if root {
        class.push_str(" root");
    }
    if n.missing {
        class.push_str(" missing");
    }
    let title = if n.missing {
        "(missing)".to_string()
    } else {
        crate::terminal::clip(&n.title, TITLE_CHARS)
    };
    let _ = write!(
        out,
        "<a href=\"{}\" class=\"gnode\" data-id=\"{}\"><title>{} [{}] {}</title>\
         <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{NODE_W}\" height=\"{NODE_H}\" rx=\"6\" class=\"{class}\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" class=\"nid\">{}{}</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" class=\"ntitle\">{}</text></a>",
        super::html::thing_href("issues", &n.id, ""),
        esc(&n.id),
        esc(&n.id),
        esc(&n.status),
        esc(&crate::terminal::clip(&n.title, TOOLTIP_CHARS)),
        n.x,
        n.y,
        n.x + 8.0,
        n.y + 16.0,
        esc(&crate::terminal::clip(&n.id, TITLE_CHARS - 2)),
        if n.truncated { " …" } else { "" },
        n.x + 8.0,
        n.y + 33.0,
        esc(&title)
    );
}

/// An edge's path and its label (drawn after the nodes, so no node hides it).
fn edge_svg(a: &Node, b: &Node, e: &Edge) -> (String, String) {
    let (ax, bx) = (a.x + NODE_W / 2.0, b.x + NODE_W / 2.0);
    // Downward edges leave the bottom and enter the top; others (a cycle's
    // way back, an edge within a layer) curve out to the right, labelled at
    // the curve's outer edge.
    let (d, mx, my, anchor) = if b.y > a.y {
        let (y1, y2) = (a.y + NODE_H, b.y);
        (
            format!("M{ax:.1},{y1:.1} L{bx:.1},{y2:.1}"),
            (ax + bx) / 2.0,
            (y1 + y2) / 2.0,
            "middle",
        )
    } else {
        let (x1, y1, x2, y2) = (
            a.x + NODE_W,
            a.y + NODE_H / 2.0,
            b.x + NODE_W,
            b.y + NODE_H / 2.0,
        );
        let cx = x1.max(x2) + 60.0;
        let cy = (y1 + y2) / 2.0;
        (
            format!("M{x1:.1},{y1:.1} Q{cx:.1},{cy:.1} {x2:.1},{y2:.1}"),
            (x1.max(x2) + cx) / 2.0 + 4.0,
            cy,
            "start",
        )
    };
    let (class, marker, label) = if e.cycle {
        (
            "edge cycle",
            "arrow-cycle",
            format!("{} · cycle", e.dep_type),
        )
    } else {
        ("edge", "arrow", e.dep_type.clone())
    };
    (
        format!(
            "<path d=\"{d}\" class=\"{class}\" marker-end=\"url(#{marker})\" data-from=\"{}\" data-to=\"{}\"/>",
            esc(&e.from),
            esc(&e.to)
        ),
        format!(
            "<text x=\"{mx:.1}\" y=\"{:.1}\" class=\"elabel{}\" text-anchor=\"{anchor}\">{}</text>",
            my + 4.0,
            if e.cycle { " cycle" } else { "" },
            esc(&label)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_edges_and_cycles_are_drawn_and_text_is_escaped() {
        let tree = json!({"id": "a<", "title": "<script>", "status": "open", "children": [
            {"id": "b", "title": "B", "status": "open", "type": "blocks", "direction": "down", "depth": 1,
             "children": [{"id": "a<", "title": "<script>", "status": "open", "type": "related", "direction": "down", "depth": 2, "cycle": true}]},
            {"id": "c", "title": "C", "status": "closed", "type": "parent-child", "direction": "up", "depth": 1},
        ]});
        let (svg, d) = draw(&tree);
        assert!(!svg.contains("<script>") && svg.contains("&lt;script&gt;"));
        let layers: BTreeMap<String, i64> = d["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["id"].as_str().unwrap().to_string(),
                    n["layer"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(layers["a<"], 0);
        assert_eq!(layers["b"], 1);
        assert_eq!(layers["c"], -1);
        let cycles: Vec<&Value> = d["edges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["cycle"] == true)
            .collect();
        // Both edges between a< and b are on the cycle; c's is not.
        assert_eq!(cycles.len(), 2, "{d}");
        assert!(svg.contains("class=\"edge cycle\"") && svg.contains("related · cycle"));
        assert!(svg.contains(">parent-child</text>"));
    }
}
