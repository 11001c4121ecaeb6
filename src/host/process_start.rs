//! A hook binary's entry point, without std's runtime start-up.
//!
//! Why: a hook is a whole process on every tool call, and before `main` std's
//! `lang_start` finds the main thread's stack guard by reading `/proc/self/maps`
//! (`pthread_getattr_np`, then `sscanf` over the lines: about 50 K instructions and a
//! dozen system calls, measured with callgrind and strace on `fable-fail-streak`), then
//! maps an alternate signal stack for SIGSEGV/SIGBUS handlers that print "has overflowed
//! its stack". A hook never recurses deeply; if it did overflow, it would die by SIGSEGV
//! instead of SIGABRT — either way not exit 2, so the host goes on (fail-open holds).
//!
//! What std's start-up does that a hook needs is done here, by hand:
//! - stdin, stdout and stderr are open: a closed one is reopened on `/dev/null`, so a file
//!   the hook opens (the evidence log) can never take descriptor 1 and receive the answer;
//! - SIGPIPE is ignored, so a host that closed our stdout costs a failed write
//!   ([`crate::runner::emit`] ignores it), not a death by signal;
//! - a panic anywhere is caught and ends in exit 0 (unwinding out of an `extern "C"`
//!   function would abort);
//! - stdout is flushed: [`crate::runner::emit`] flushes what it writes (nothing else in a
//!   hook writes to stdout), since std's exit-time flush is not run.
//!
//! `std::env::args` needs nothing: on glibc std reads them from `.init_array`.
//!
//! Each hook binary is `#![no_main]` plus [`hook_main!`](crate::hook_main).

use std::panic::{self, AssertUnwindSafe};

/// Runs `body` as a process's whole life after the C runtime's start: returns the exit
/// code for `main` to return.
pub fn run(body: impl FnOnce() -> u8) -> std::ffi::c_int {
    // SAFETY: plain libc calls on the process's own descriptors and signal disposition,
    // before any thread exists.
    unsafe {
        reopen_closed_std_fds();
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(code) => std::ffi::c_int::from(code),
        // The runner catches the decision's panics and says so; one here came from
        // reading stdin or writing the answer, where nothing more can be said.
        Err(_) => 0,
    }
}

/// As std's start-up: any of descriptors 0–2 that is not open is opened on `/dev/null`.
///
/// # Safety
/// Must run before the process opens any other file.
unsafe fn reopen_closed_std_fds() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    if libc::poll(fds.as_mut_ptr(), 3, 0) < 0 {
        return;
    }
    for pfd in fds {
        if pfd.revents & libc::POLLNVAL != 0 {
            let flags = if pfd.fd == 0 { libc::O_RDONLY } else { libc::O_WRONLY };
            // The lowest free descriptor is the closed one.
            libc::open(c"/dev/null".as_ptr(), flags);
        }
    }
}

/// Defines a hook binary's `main` (with `#![no_main]` at the top of the file): runs
/// `fable::host::run_hook(name, decide)` through [`run`](crate::host::process_start::run).
/// A third argument is a closure run first that may answer instead (`Some(code)`).
#[macro_export]
macro_rules! hook_main {
    ($name:expr, $decide:path) => {
        $crate::hook_main!($name, $decide, || None);
    };
    ($name:expr, $decide:path, $first:expr) => {
        /// The C runtime's entry: see `fable::host::process_start`.
        #[unsafe(no_mangle)]
        pub extern "C" fn main(_argc: ::std::ffi::c_int, _argv: *const *const ::std::ffi::c_char) -> ::std::ffi::c_int {
            $crate::host::process_start::run(|| {
                let first: fn() -> Option<u8> = $first;
                first().unwrap_or_else(|| $crate::host::run_hook($name, $decide))
            })
        }
    };
}
