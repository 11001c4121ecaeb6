//! fable-learn (SessionEnd): runs the learning pipeline on new evidence, bounded in time
//! (`FABLE_LEARN_BUDGET_MS`), never blocking the session.
#![no_main]

fable::hook_main!("fable-learn", fable::learn::decide);
