//! Detects the installed Claude Code version (installer work).
