import Foundation

/// What a run of the command line reads from its process besides its words: the environment and standard input.
/// A task-local, so that a caller running commands in process (the tests) gives each run its own.
public struct Invocation: Sendable {
    /// The variables the settings are read from (`APNSD_*`).
    public let environment: [String: String]
    /// What `device import -` and `--payload @-` read.
    public let standardInput: FileHandle

    public init(environment: [String: String], standardInput: FileHandle) {
        self.environment = environment
        self.standardInput = standardInput
    }

    /// This process's environment and file descriptor 0.
    public static var process: Invocation {
        Invocation(environment: ProcessInfo.processInfo.environment, standardInput: .standardInput)
    }

    /// The running command's invocation.
    @TaskLocal public static var current = Invocation.process
}
