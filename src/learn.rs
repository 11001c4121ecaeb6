//! The learning pipeline and the SessionEnd hook (learning work).
