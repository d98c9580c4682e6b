//! Text for people's terminals. Anything a program or a store supplied
//! (values, output, action ids, diagnostics, issue titles, step ids) may hold
//! control characters: a newline that forges an `accepted · …` line, an
//! escape sequence that clears the screen or retitles the window, a
//! right-to-left override that reorders what is shown. Human-readable output
//! passes such text through [`field`] (one line) or [`lines`] (a block);
//! JSON output needs none of this, since JSON escapes control characters.

use std::borrow::Cow;

/// `text` at most `max` characters long, `…` marking a cut: how a long
/// value is shown in one cell or one line (it cuts at a character, never
/// inside one).
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Whether `c` must not reach a terminal as it is.
fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c) // C0, DEL and C1
}

/// Whether `c` changes the direction of the text around it (embeddings,
/// overrides, isolates, marks): text from a store shown with such a
/// character in it reads in an order its writer chose.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

fn escape_into(out: &mut String, c: char) {
    use std::fmt::Write as _;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` as one line: every control character (newlines included) escaped.
pub fn field(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            escape_into(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as lines: split on newlines, each line with its other control
/// characters escaped (tabs kept).
pub fn lines(text: &str) -> impl Iterator<Item = Cow<'_, str>> {
    text.lines().map(|line| {
        if !line.chars().any(|c| c != '\t' && is_unsafe(c)) {
            return Cow::Borrowed(line);
        }
        let mut out = String::with_capacity(line.len() + 8);
        for c in line.chars() {
            if c != '\t' && is_unsafe(c) {
                escape_into(&mut out, c);
            } else {
                out.push(c);
            }
        }
        Cow::Owned(out)
    })
}

/// A copy of `value` whose strings (keys included) are [`field`]-escaped,
/// for renderings that print parts of it.
pub fn value(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(field(s).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(self::value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (field(k).into_owned(), self::value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_escaped() {
        assert_eq!(field("call-1\naccepted · x"), "call-1\\naccepted · x");
        assert_eq!(field("\u{1b}[2J"), "\\x1b[2J");
        assert_eq!(field("abc\u{202e}def"), "abc\\u{202e}def");
        assert_eq!(field("plain é"), "plain é");
        let l: Vec<_> = lines("a\tb\n\u{7}c").collect();
        assert_eq!(l, vec!["a\tb", "\\x07c"]);
    }
}
