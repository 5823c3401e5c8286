import Commands
import Foundation
import Testing
import Threads

/// A command that runs until asked to stop (`worker`, `serve`, `campaign watch`, `log --follow`), run in process
/// in the background: what it prints and logs is captured, `stop()` asks it to stop as SIGTERM asks the binary.
public final class RunningCommand: Sendable {
    private let stdout = Locked("")
    private let stderr = Locked("")
    private let stops = StopRequests()
    private let ended = Locked<Int32?>(nil)

    init(arguments: [String], environment: [String: String]) {
        let invocation = Invocation(environment: environment, standardInput: .nullDevice, stops: stops)
        Task(executorPreference: globalConcurrentExecutor) { [stdout, stderr, ended] in
            let status = await CLI.main(arguments, output: stdout, error: stderr, invocation: invocation)
            ended.withLock { $0 = status }
        }
    }

    /// What it printed on stdout so far.
    public var output: String { stdout.withLock { $0 } }
    /// Its log lines so far (JSON: a capture is not a terminal).
    public var log: String { stderr.withLock { $0 } }

    /// The log lines written so far, in order.
    public func events() -> [[String: Any]] {
        log.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    public func events(_ message: String) -> [[String: Any]] { events().filter { $0["msg"] as? String == message } }

    /// Asks it to stop (as the first SIGTERM does).
    public func stop() { stops.request() }

    /// Its exit status once it ended; nil while it runs.
    public var exitStatus: Int32? { ended.withLock { $0 } }

    /// Whether it still runs.
    public var isRunning: Bool { exitStatus == nil }

    /// Waits up to `seconds` for it to end; false if it still runs.
    public func waitForExit(_ seconds: Double) async -> Bool {
        await Fleet.eventually(seconds, every: 0.02) { self.exitStatus != nil }
    }

    /// Asks it to stop and waits up to `seconds`; the time it took, nil if it still runs.
    public func terminate(within seconds: Double) async -> Double? {
        let asked = Date()
        stop()
        let done = await Fleet.eventually(seconds, every: 0.02) { self.exitStatus != nil }
        return done ? Date().timeIntervalSince(asked) : nil
    }

    /// For `defer`: asks twice (stop, and abandon what cannot be written) without waiting.
    public func stopIfRunning() {
        stops.request()
        stops.request()
    }
}

extension CLI {
    /// Starts `apnsd ARGUMENTS` in this process, in the background (see `RunningCommand`).
    public func launch(_ arguments: [String], environment extra: [String: String] = [:]) -> RunningCommand {
        RunningCommand(arguments: arguments, environment: environment.merging(extra) { $1 })
    }
}
