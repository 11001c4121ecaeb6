//! PostToolUse(Failure) hook: the fail-streak guard (discipline work).
