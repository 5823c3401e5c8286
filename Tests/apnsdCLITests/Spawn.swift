import Foundation

/// Runs the built `apnsd` as a child of this process with posix_spawn and `wait4`, to learn what
/// Foundation's `Process` cannot tell: the child's peak resident memory.
enum Spawn {
    struct Outcome {
        var status: Int32
        var stderr: String
        /// Peak resident set size of the child, in KiB (`ru_maxrss`).
        var peakKiB: Int
    }

    /// Runs `apnsd arguments` with `cli`'s environment (paths in it are absolute), standard input from `stdinPath`
    /// (or /dev/null), and waits for it.
    static func apnsd(_ cli: CLI, _ arguments: [String], stdinPath: String = "/dev/null") throws -> Outcome {
        let errPath = cli.directory.appendingPathComponent("spawn-err-\(UUID().uuidString)").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let executable = CLI.binaries.appendingPathComponent("apnsd").path
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = cli.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Outcome(status: exit, stderr: stderr, peakKiB: usage.ru_maxrss)
    }
}
