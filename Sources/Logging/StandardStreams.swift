import Foundation

/// Where this task's standard output and error go: the process's own, or a capture (apnsd's command line run in
/// process, as its tests do). Read when a line is written, or when a `Logger` is made, so a capture set around a
/// command reaches everything it prints and logs, its worker's threads included.
public struct StandardStreams: Sendable {
    /// Writes text to standard output.
    public let output: @Sendable (String) -> Void
    /// Writes text to standard error.
    public let error: @Sendable (String) -> Void
    /// Whether standard output is a terminal (tables and progress lines instead of JSON Lines).
    public let outputIsTerminal: Bool
    /// Whether standard error is a terminal (readable log lines instead of JSON).
    public let errorIsTerminal: Bool
    /// Whether standard error is the systemd journal (log lines start with their syslog priority).
    public let errorIsJournal: Bool

    public init(
        output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void,
        outputIsTerminal: Bool = false, errorIsTerminal: Bool = false, errorIsJournal: Bool = false
    ) {
        self.output = output
        self.error = error
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.errorIsJournal = errorIsJournal
    }

    /// The process's file descriptors 1 and 2.
    public static let process = StandardStreams(
        output: { FileHandle.standardOutput.write(Data($0.utf8)) },
        error: { FileHandle.standardError.write(Data($0.utf8)) },
        outputIsTerminal: isatty(1) == 1, errorIsTerminal: isatty(2) == 1,
        errorIsJournal: isJournal(descriptor: 2, environment: ProcessInfo.processInfo.environment))

    /// Whether `descriptor` is the journal's stream: systemd sets `JOURNAL_STREAM` to its `<device>:<inode>` for a
    /// service whose output goes there. Children inherit the variable whatever their output is, so the open file is
    /// compared, not just the variable's presence.
    public static func isJournal(descriptor: Int32, environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// The streams of the running task: the process's unless a caller bound others.
    @TaskLocal public static var current = StandardStreams.process
}
