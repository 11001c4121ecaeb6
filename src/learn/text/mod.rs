//! **Text**: one command line or one output, read on its own, before anything is compared.
//!
//! Owns command normalisation ([`command_norm`]: segments, domain, action, flags; the
//! wrappers it unwraps in [`wrappers`]; the
//! program's family in [`program_family`]; the step an error names in [`failing_program`]), what a
//! command only looks at ([`inspection`], [`read_only`]), canonical flag spellings
//! ([`spelling`]), the setting a `config` step sets ([`config_setting`]), the context a retry added ([`retry_context`]), recovery by intent on the
//! raw words ([`intent`]), what the shell hands a program for each word ([`shell_expansion`]), failure signatures and anchors ([`signature`], the command's echoed operands it masks in
//! [`operand_echo`], its phrase lexicon in
//! [`anchor_phrases`], the session's names it ignores in [`names`] and the variables' names it keys no class on in [`variable_name`], its regex engines
//! in [`mask_engine`], its error words in [`error_words`] and the warnings it sets aside beside an error in [`warning_line`], its masks'
//! gates in [`mask_gates`]), what a failure says was missing ([`said_missing`]), the options it names ([`named_options`]), the clause it ends on whoever framed it ([`message_core`]), the safety patterns ([`safety`]; a switch that names a check and
//! turns it off, in [`check_off`]) and the switch that turns one
//! hand-written table off for a measurement ([`tables`]).
//!
//! May use: the crate root and [`crate::evidence`] (text helpers). Nothing else in
//! [`crate::learn`]: every later stage reads text through this folder.

pub mod anchor_phrases;
pub mod check_off;
pub mod command_norm;
pub mod config_setting;
pub mod error_words;
pub mod exit_report;
pub mod failing_program;
pub mod inspection;
pub mod intent;
pub mod mask_engine;
pub mod mask_gates;
pub mod message_core;
pub mod named_options;
pub mod names;
pub mod operand_echo;
pub mod program_family;
pub mod read_only;
pub mod retry_context;
pub mod safety;
pub mod said_missing;
pub mod shell_expansion;
pub mod signature;
pub mod spelling;
pub mod tables;
pub mod variable_name;
pub mod warning_line;
pub mod wrappers;
