//! The remedy table: template directives for well-known failure anchors.

/// Well-known remedies by anchor, for failures whose fix was never observed. Kept short
/// and generic on purpose: a template directive is a starting point, and it still has to
/// pass replay and every gate like any other.
pub fn remedy(anchor: &str) -> Option<&'static str> {
    Some(match anchor {
        "non-fast-forward" => "run `git pull --rebase` to integrate the remote commits, then push again",
        "ModuleNotFoundError" => "install the missing module in the project's environment, then re-run",
        "ImportError" => "check the imported name against the installed package version",
        "cannot-find-module" => "install the missing dependency (`npm install`), then re-run",
        "EADDRINUSE" => "stop the process holding the port or map a free port, then start again",
        "ENOSPC" => "free disk space (prune unused images, caches and build artefacts), then retry",
        "command-not-found" => "install the missing tool or use an available alternative",
        "permission-denied" | "errno13" => {
            "check the file's permissions and owner, or run it through its interpreter or a virtualenv"
        }
        "publickey" => "load the right SSH key (`ssh-add`) or use a token-based remote",
        "conflict" => "resolve the conflicting hunks, `git add` them, and complete the merge",
        "rebase-conflict" => "resolve the conflicting files, `git add` them, then `git rebase --continue`",
        "pathspec" => "fetch the remote branch (`git fetch`) before checking it out",
        "detached-head" => "create a branch (`git switch -c <name>`) before committing",
        "package-not-found" => "fix the package name or the base image before rebuilding",
        "version-conflict" => "pin mutually compatible versions, then reinstall",
        "no-matching-version" => "pick a version that exists for this platform and interpreter",
        "timeout" | "gateway-timeout" | "selector-timeout" => {
            "find out what is slow (logs, probes, network) before retrying, and raise the timeout only with a reason"
        }
        "rate-limit" | "http429" => "back off and retry with exponential delay",
        "token-expired" | "http401" | "unauthorized" => "refresh the credential before retrying",
        "syntax-error" => "fix the offending line before running again",
        "AssertionError" | "go-test-fail" => "compare expected and actual values and fix the code under test",
        "deadlock" => "retry the transaction and order the writes consistently",
        "ECONNREFUSED" => "check that the server is running and the host and port are right",
        "ENOTFOUND" => "check the host name and the network before retrying",
        "CrashLoopBackOff" => "read the pod's logs and fix the failing startup command",
        "ErrImagePull" => "correct the image tag or the registry credentials",
        "AccessDenied" | "forbidden" | "http403" => "grant the missing permission to the caller before retrying",
        "state-lock" => "wait for or identify the other operation holding the state lock before retrying",
        "backend-changed" => "migrate the state with `terraform init -migrate-state`",
        "unsupported-argument" => "fix the invalid argument in the configuration",
        "multiple-heads" => "merge the migration heads before upgrading",
        "undefined-symbol" | "undefined-reference" | "unresolved-import" | "E0432" | "E0425" => {
            "add the missing import or definition"
        }
        "link-failed" => "install the missing native library or enable the needed feature",
        "no-tests" => "fix the test discovery path or naming so tests are found",
        "fixture-not-found" => "define or import the fixture where the test can see it",
        "stale-cache" => "clear the cache and re-run with a fresh one",
        "unhealthy" => "inspect the service's healthcheck and logs before retrying",
        "no-matches-for-kind" => "install the CRD (or API) the manifest needs before applying it",
        "oom" => "give the process more memory or reduce its footprint",
        "stale-element" => "re-locate the element after the page changes instead of reusing the reference",
        "element-not-found" | "NoSuchElementException" => "wait for the element to appear and re-check the selector",
        "unexpected-alert" | "UnexpectedAlertOpenException" => "accept or dismiss the alert before continuing",
        "ERESOLVE" | "peer-dependency" => "install a compatible version explicitly instead of forcing the tree",
        "http500" | "http502" | "http503" | "http504" => "retry with backoff and check the service's health",
        "ENOENT" => "check that the path exists (and is relative to the right directory)",
        _ => return None,
    })
}
