//! Pure merge of our hook entries into a Claude Code settings document (installer work).
