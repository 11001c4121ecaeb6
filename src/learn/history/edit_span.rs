//! Where two spellings of one word differ: the characters they share at the start and at
//! the end, and so the span between that one edit changed. Several recovery forms ask it
//! (a text inserted into an operand, a name retyped, the kept text around an insertion).

/// How many characters two texts share at their start, and then at their end (never
/// overlapping the start): what is left between is what changed.
pub fn shared_ends(o: &[char], n: &[char]) -> (usize, usize) {
    let p = o.iter().zip(n).take_while(|(a, b)| a == b).count();
    let s = o[p..]
        .iter()
        .rev()
        .zip(n[p..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (p, s)
}
