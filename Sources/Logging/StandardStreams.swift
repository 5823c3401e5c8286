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

    public init(
        output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void,
        outputIsTerminal: Bool = false, errorIsTerminal: Bool = false
    ) {
        self.output = output
        self.error = error
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
    }

    /// The process's file descriptors 1 and 2.
    public static let process = StandardStreams(
        output: { FileHandle.standardOutput.write(Data($0.utf8)) },
        error: { FileHandle.standardError.write(Data($0.utf8)) },
        outputIsTerminal: isatty(1) == 1, errorIsTerminal: isatty(2) == 1)

    /// The streams of the running task: the process's unless a caller bound others.
    @TaskLocal public static var current = StandardStreams.process
}
