//! Citation corroboration against the evidence log (discipline work).
