//! HTML building blocks. Every program- or store-supplied string reaches a
//! page through [`esc`] (or [`Html::text`]): programs are hostile, and a title
//! `<script>` must render as text.

use std::fmt::Write;

/// `text` escaped for HTML element content and quoted attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // A bidirectional control from the store would reorder the
            // page's text around it (issue 55): shown, as the CLI shows it.
            c if crate::terminal::is_bidi_control(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The link to the page about one thing: `/{kind}/{id}{rest}` (`kind`
/// `issues` or `sessions`, `rest` a sub-page such as `/graph`), and for an
/// id a browser would read as a dot segment (`.`, `..`), which no encoding
/// keeps, the same page by query: `/issue{rest}?id=…` (`/session?id=…`;
/// issue 55).
pub fn thing_href(kind: &str, id: &str, rest: &str) -> String {
    if id == "." || id == ".." {
        let one = kind.strip_suffix('s').unwrap_or(kind);
        format!("/{one}{rest}?id={}", url_part(id))
    } else {
        format!("/{kind}/{}{rest}", url_part(id))
    }
}

/// `href` with `pair` (`name=value`, already encoded) added to its query.
pub fn with_query(href: &str, pair: &str) -> String {
    let joint = if href.contains('?') { '&' } else { '?' };
    format!("{href}{joint}{pair}")
}

/// `text` percent-encoded for a path segment or query value of a link.
pub fn url_part(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A page body being built; `raw` takes markup this module's callers made,
/// `text` takes data.
#[derive(Default)]
pub struct Html(pub String);

impl Html {
    pub fn raw(&mut self, markup: &str) -> &mut Self {
        self.0.push_str(markup);
        self
    }

    pub fn text(&mut self, text: &str) -> &mut Self {
        self.0.push_str(&esc(text));
        self
    }

    /// `<tag class="class">text</tag>` with `text` escaped.
    pub fn el(&mut self, tag: &str, class: &str, text: &str) -> &mut Self {
        if class.is_empty() {
            let _ = write!(self.0, "<{tag}>{}</{tag}>", esc(text));
        } else {
            let _ = write!(self.0, "<{tag} class=\"{class}\">{}</{tag}>", esc(text));
        }
        self
    }

    /// A link; `href` is built by the caller from [`url_part`]s.
    pub fn link(&mut self, href: &str, text: &str) -> &mut Self {
        let _ = write!(self.0, "<a href=\"{}\">{}</a>", esc(href), esc(text));
        self
    }
}

/// The navigation entries: path and label.
const NAV: [(&str, &str); 5] = [
    ("/queue", "Queue"),
    ("/leases", "Leases"),
    ("/runs", "Runs"),
    ("/plans", "Plans"),
    ("/trajectory", "Trajectory & KPI"),
];

/// A whole page: head with the served stylesheet and script, the navigation
/// (the current entry marked), the title and the body.
pub fn page(title: &str, current: &str, body: &str) -> String {
    let mut nav = String::new();
    for (href, label) in NAV {
        let mark = if href == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        let _ = write!(nav, "<a href=\"{href}\"{mark}>{label}</a>");
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · tusk observe</title>\
         <link rel=\"stylesheet\" href=\"/assets/observe.css\">\
         <link rel=\"icon\" href=\"data:,\">\
         <script src=\"/assets/observe.js\" defer></script></head>\
         <body><header><span class=\"brand\">tusk observe</span><nav>{nav}</nav></header>\
         <main><h1>{}</h1>{body}</main></body></html>\n",
        esc(title),
        esc(title)
    )
}

/// A table: header cells (static text) and rows of ready-made cell markup.
pub fn table(id: &str, headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("<table id=\"{id}\"><thead><tr>");
    for h in headers {
        let _ = write!(out, "<th>{h}</th>");
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>");
    }
    if rows.is_empty() {
        let _ = write!(
            out,
            "<tr><td colspan=\"{}\" class=\"none\">none</td></tr>",
            headers.len().max(1)
        );
    }
    out.push_str("</tbody></table>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
        assert_eq!(url_part("bd-1 /?&<"), "bd-1%20%2F%3F%26%3C");
    }
}
