//! PreToolUse hook: spawn guard (discipline work).
