//! The line diff `fable install --dry-run` prints: what the settings file would become.

pub fn print_diff(old: Option<&[u8]>, new: &str) {
    let old = old.map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
    print!("{}", line_diff(&old, new));
}

/// A readable line diff (`-` removed, `+` added, two lines of context, `…` between hunks).
pub fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut out = String::new();
    if a.len().saturating_mul(b.len()) > 4_000_000 {
        // Too big for a quadratic diff: show the result instead.
        for l in &b {
            out.push_str(&format!("+ {l}\n"));
        }
        return out;
    }
    // Longest common subsequence table, from the end.
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    const CONTEXT: usize = 2;
    let show: Vec<bool> = (0..ops.len())
        .map(|k| {
            let lo = k.saturating_sub(CONTEXT);
            let hi = (k + CONTEXT + 1).min(ops.len());
            ops[lo..hi].iter().any(|(c, _)| *c != ' ')
        })
        .collect();
    let mut gap = false;
    for (k, (c, line)) in ops.iter().enumerate() {
        if show[k] {
            if gap && !out.is_empty() {
                out.push_str("  …\n");
            }
            gap = false;
            out.push_str(&format!("{c} {line}\n"));
        } else {
            gap = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_changes_with_context() {
        let d = line_diff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\ne\nf\ng\n");
        assert_eq!(d, "  b\n  c\n- d\n+ X\n  e\n  f\n");
        assert_eq!(line_diff("", "{}\n"), "+ {}\n");
        assert_eq!(line_diff("same\n", "same\n"), "");
    }
}
