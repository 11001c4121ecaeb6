//! Where promoted rules meet the hooks (learning work): the few most relevant rules for
//! a new session, and the rule that matches a failure at the moment it happens.
//! Both must be cheap: they run inside hooks.

use crate::evidence::Record;
use crate::project::Project;

/// Text for SessionStart listing up to `max` promoted rules, or `None` when there are none.
pub fn session_context(_project: &Project, _max: usize) -> Option<String> {
    None
}

/// "Standing rule R-7 applies: …" when a promoted rule's trigger matches this failure.
pub fn failure_context(_project: &Project, _failure: &Record) -> Option<String> {
    None
}
