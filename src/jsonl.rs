//! A large JSONL text parsed on several threads: how many, and where to cut
//! it. Each line stands alone, so pieces that end at line ends parse
//! independently and join in file order. The issue store and the effect log
//! both read this way.

/// Below this a text is parsed on the calling thread (spawning costs more
/// than it saves).
pub(crate) const PARALLEL_BYTES: usize = 4 << 20;

/// How many threads parse a text of `len` bytes.
pub(crate) fn threads_for(len: usize) -> usize {
    if len < PARALLEL_BYTES {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
    }
}

/// Up to `n` byte ranges covering `bytes`, each ending just after a newline
/// (the last at the end).
pub(crate) fn split_at_lines(bytes: &[u8], n: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let target = (bytes.len() * k / n).max(start);
        let Some(nl) = memchr::memchr(b'\n', &bytes[target..]) else {
            break;
        };
        out.push((start, target + nl + 1));
        start = target + nl + 1;
    }
    out.push((start, bytes.len()));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn pieces_cover_the_text_and_end_at_line_ends() {
        let text = b"a\nbb\n\nccc\ndddd\ne";
        for n in 1..=12 {
            let pieces = super::split_at_lines(text, n);
            assert!(pieces.len() <= n);
            assert_eq!(pieces.first().map(|p| p.0), Some(0));
            assert_eq!(pieces.last().map(|p| p.1), Some(text.len()));
            for w in pieces.windows(2) {
                assert_eq!(w[0].1, w[1].0, "{n} pieces: contiguous");
                assert_eq!(text[w[0].1 - 1], b'\n', "{n} pieces: cut after a newline");
            }
        }
    }
}
