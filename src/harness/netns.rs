//! A private network namespace for the calling thread: only a loopback exists in it, so
//! the CLI under test (a child of this thread) can reach the mock and nothing else.
//!
//! `unshare(CLONE_NEWNET)` moves only the calling thread (a thread is a task to Linux), so
//! a test process with many threads can do it on one dedicated thread: the mock's listener
//! is bound there and every process that thread spawns inherits the namespace. It needs
//! CAP_SYS_ADMIN (root, as CI runs); without it the caller runs without isolation — the
//! CLI still talks only to the mock (its base URL, non-essential traffic off).

use std::io;

/// Moves the calling thread into a fresh network namespace and brings its loopback up.
pub fn isolate_this_thread() -> io::Result<()> {
    // SAFETY: plain syscalls on this thread's own state; no memory is shared with them.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    loopback_up()
}

/// `ip link set lo up`, by ioctl: the fresh namespace's loopback starts down.
fn loopback_up() -> io::Result<()> {
    // SAFETY: `ifreq` is plain old data, zeroed then filled; the socket is closed below.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        for (d, s) in req.ifr_name.iter_mut().zip(b"lo\0") {
            *d = *s as libc::c_char;
        }
        let mut r = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut req);
        if r == 0 {
            req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            r = libc::ioctl(fd, libc::SIOCSIFFLAGS, &req);
        }
        let err = io::Error::last_os_error();
        libc::close(fd);
        if r != 0 {
            return Err(err);
        }
    }
    Ok(())
}
