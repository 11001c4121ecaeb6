//! Ledger parser (discipline work).
