import Foundation
import Synchronization

/// What a run of the command line reads from its process besides its words: the environment, standard input, and
/// the requests to stop. A task-local, so that a caller running commands in process (the tests) gives each run its
/// own.
public struct Invocation: Sendable {
    /// The variables the settings are read from (`APNSD_*`).
    public let environment: [String: String]
    /// What `device import -` and `--payload @-` read.
    public let standardInput: FileHandle
    /// What stops `worker`, `serve` and `log --follow`.
    public let stops: StopRequests

    public init(environment: [String: String], standardInput: FileHandle, stops: StopRequests = StopRequests()) {
        self.environment = environment
        self.standardInput = standardInput
        self.stops = stops
    }

    /// This process's environment, file descriptor 0, and SIGINT/SIGTERM.
    public static var process: Invocation {
        Invocation(
            environment: ProcessInfo.processInfo.environment, standardInput: .standardInput, stops: .signals)
    }

    /// The running command's invocation.
    @TaskLocal public static var current = Invocation.process
}

/// Requests to stop a command that runs until asked (`worker`, `serve`, `log --follow`): the first stops it cleanly,
/// a second abandons what the database would not take. The process's are its SIGINT and SIGTERM (`signals`); a caller
/// running a command in process asks with `request()`.
public final class StopRequests: Sendable {
    private let received = Atomic<Int>(0)

    public init() {}

    /// Asks the command to stop (a second time: to abandon).
    public func request() { received.add(1, ordering: .relaxed) }

    /// How many times it was asked.
    public var count: Int { received.load(ordering: .relaxed) }

    /// SIGINT and SIGTERM of this process, counted once a command installs the handler (`forThisCommand`).
    public static let signals = StopRequests()

    /// The running command's stop requests. When they are the process's signals, the handler is installed first, so
    /// that a signal sent while the command starts is counted, not lost.
    static func forThisCommand() -> StopRequests {
        let stops = Invocation.current.stops
        if stops === signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in StopRequests.signals.request() }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(SIGINT, &action, nil)
            sigaction(SIGTERM, &action, nil)
        }
        return stops
    }
}
