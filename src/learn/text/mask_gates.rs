//! Cheap necessary conditions for the signature masks: a byte scan that says "this mask
//! cannot match here", so a hook does not compile a regex only to find nothing.
//!
//! Why: after the error words, compiling the masks was the largest cost of a fail-streak
//! failure (0.34 M instructions for nine `regex_lite` compiles, 0.2 M more to run them
//! over one line), and most masks find nothing in a given error line. Each gate is
//! implied by its pattern (a match needs what the gate looks for), so a gate that says
//! no changes nothing: the mask would have found no match. They run with the light
//! engine only ([`crate::learn::text::mask_engine::LazyRe`]); the test
//! `gates_hold_wherever_their_mask_matches` checks each against its regex on every corpus
//! line, and `signature::tests::engines_agree_on_corpora` compares the gated light engine
//! with the ungated full one.

/// An ASCII word byte, as `\b` and `\w` read them in the masks.
fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether a word starts at `i` (`\b` before a word byte).
fn starts_word(b: &[u8], i: usize) -> bool {
    i == 0 || !word(b[i - 1])
}

/// `\s` in the masks: ASCII whitespace, vertical tab included.
fn space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

fn at(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> bool {
    b.get(i).is_some_and(|&c| f(c))
}

fn lower_hex(c: u8) -> bool {
    c.is_ascii_digit() || (b'a'..=b'f').contains(&c)
}

fn contains(b: &[u8], needle: &[u8]) -> bool {
    b.windows(needle.len()).any(|w| w == needle)
}

/// `hash`: seven lower-case hex digits in a row, twelve upper-case ones, or `sha256:`.
pub fn hash(b: &[u8]) -> bool {
    let (mut run, mut upper) = (0, 0);
    for &c in b {
        run = if lower_hex(c) { run + 1 } else { 0 };
        upper = if c.is_ascii_digit() || (b'A'..=b'F').contains(&c) {
            upper + 1
        } else {
            0
        };
        if run >= 7 || upper >= 12 {
            return true;
        }
    }
    contains(b, b"sha256:")
}

/// `dur`: a number at a word start followed (after its digits and dots and one space at
/// most) by `m`, `s` or `h`; or a digit, `:`, a digit.
pub fn dur(b: &[u8]) -> bool {
    for i in 0..b.len() {
        if !b[i].is_ascii_digit() {
            continue;
        }
        if b.get(i + 1) == Some(&b':') && at(b, i + 2, |c| c.is_ascii_digit()) {
            return true;
        }
        if starts_word(b, i) {
            let mut j = i;
            while at(b, j, |c| c.is_ascii_digit() || c == b'.') {
                j += 1;
            }
            if at(b, j, space) {
                j += 1;
            }
            if at(b, j, |c| matches!(c, b'm' | b's' | b'h')) {
                return true;
            }
        }
    }
    false
}

/// `num`: a digit at a word start.
pub fn num(b: &[u8]) -> bool {
    (0..b.len()).any(|i| b[i].is_ascii_digit() && starts_word(b, i))
}

/// `code_e`: `E` at a word start and three capitals.
pub fn code_e(b: &[u8]) -> bool {
    (0..b.len()).any(|i| b[i] == b'E' && starts_word(b, i) && (1..4).all(|k| at(b, i + k, |c| c.is_ascii_uppercase())))
}

/// `code_errno`: `errno` in any case (no other letter folds to e, r, n or o).
pub fn code_errno(b: &[u8]) -> bool {
    b.windows(5).any(|w| w.eq_ignore_ascii_case(b"errno"))
}

/// `code_letter`: a capital and three digits.
pub fn code_letter(b: &[u8]) -> bool {
    (0..b.len()).any(|i| b[i].is_ascii_uppercase() && (1..4).all(|k| at(b, i + k, |c| c.is_ascii_digit())))
}

/// `http`: `4` or `5` at a word start, two digits, then no word byte.
pub fn http(b: &[u8]) -> bool {
    (0..b.len()).any(|i| {
        matches!(b[i], b'4' | b'5')
            && starts_word(b, i)
            && at(b, i + 1, |c| c.is_ascii_digit())
            && at(b, i + 2, |c| c.is_ascii_digit())
            && !at(b, i + 3, word)
    })
}

/// `camel`: two `[A-Z][a-z0-9]+` in a row, or one of the class suffixes.
pub fn camel(b: &[u8]) -> bool {
    let low = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    for i in 0..b.len() {
        if b[i].is_ascii_uppercase() && at(b, i + 1, low) {
            let mut j = i + 1;
            while at(b, j, low) {
                j += 1;
            }
            if at(b, j, |c| c.is_ascii_uppercase()) && at(b, j + 1, low) {
                return true;
            }
        }
    }
    [&b"Error"[..], b"Exception", b"Exit", b"Denied", b"NotFound"]
        .iter()
        .any(|w| contains(b, w))
}
