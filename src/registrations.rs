//! Hook registrations from `hooks/hooks.json` (owned by the installer work).
