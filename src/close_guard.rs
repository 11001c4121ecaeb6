//! Stop hook: the close guard (discipline work).
