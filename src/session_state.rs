//! Per-session state under `.fable/` (discipline work).
