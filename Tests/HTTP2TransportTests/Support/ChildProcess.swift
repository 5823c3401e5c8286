import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawn, stdout and stderr appended to a file.
///
/// Not Foundation.Process: its children inherit the test runner's blocked signal mask (SIGTERM blocked),
/// and waitUntilExit spins a run loop on a cooperative thread. Here the child gets a clean signal mask
/// and default dispositions, and `wait` is a plain waitpid.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    private var exited = false
    private let lock = NSLock()

    init(path: String, arguments: [String], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let code = ToolRun.exclusively { posix_spawn(&pid, path, &actions, &attributes, argv, environ) }
        guard code == 0 else {
            throw NSError(
                domain: "ChildProcess", code: Int(code),
                userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(path): \(String(cString: strerror(code)))"])
        }
        self.pid = pid
    }

    /// Sends `signal` and reaps the child (blocking: call from a test, never from a hot path).
    func stop(signal: Int32 = SIGTERM) {
        lock.lock()
        defer { lock.unlock() }
        guard !exited else { return }
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exited = true
    }

    deinit { stop(signal: SIGKILL) }
}
