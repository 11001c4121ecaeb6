//! SessionStart hook: context injection (discipline work).
