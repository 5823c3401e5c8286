import Commands
import Foundation
import Logging
import Testing

/// A command that runs until asked to stop (`worker`, `serve`, `campaign watch`, `log --follow`), run in process
/// in the background: what it prints and logs is captured, `stop()` asks it to stop as SIGTERM asks the binary.
public final class RunningCommand: Sendable {
    private let stdout = Captured()
    private let stderr = Captured()
    private let stops = StopRequests()
    private let ended = ExitStatus()
    private let task: Task<Int32, Never>

    init(arguments: [String], environment: [String: String]) {
        let streams = StandardStreams(output: stdout.append, error: stderr.append)
        let invocation = Invocation(environment: environment, standardInput: .nullDevice, stops: stops)
        // On the shared pool, as `CLI.run`, whatever executor the test prefers.
        task = Task(executorPreference: globalConcurrentExecutor) { [ended] in
            let status = await StandardStreams.$current.withValue(streams) {
                await Invocation.$current.withValue(invocation) { await Apnsd.main(arguments) }
            }
            ended.set(status)
            return status
        }
    }

    /// What it printed on stdout so far.
    public var output: String { stdout.text }
    /// Its log lines so far (JSON: a capture is not a terminal).
    public var log: String { stderr.text }

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
    public var exitStatus: Int32? { ended.value }

    /// Whether it still runs.
    public var isRunning: Bool { ended.value == nil }

    /// Waits up to `seconds` for it to end; false if it still runs.
    public func waitForExit(_ seconds: Double) async -> Bool {
        await Fleet.eventually(seconds, every: 0.02) { ended.value != nil }
    }

    /// Asks it to stop and waits up to `seconds`; the time it took, nil if it still runs.
    public func terminate(within seconds: Double) async -> Double? {
        let asked = Date()
        stop()
        let done = await Fleet.eventually(seconds, every: 0.02) { ended.value != nil }
        return done ? Date().timeIntervalSince(asked) : nil
    }

    /// For `defer`: asks twice (stop, and abandon what cannot be written) without waiting.
    public func stopIfRunning() {
        stops.request()
        stops.request()
    }
}

/// An exit status, set once, behind a lock.
final class ExitStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var status: Int32?
    var value: Int32? { lock.withLock { status } }
    func set(_ value: Int32) { lock.withLock { status = value } }
}

/// What a command wrote to one of its streams.
final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""
    var text: String { lock.withLock { buffer } }
    @Sendable func append(_ text: String) { lock.withLock { buffer += text } }
}

extension CLI {
    /// Starts `apnsd ARGUMENTS` in this process, in the background (see `RunningCommand`).
    public func launch(_ arguments: [String], environment extra: [String: String] = [:]) -> RunningCommand {
        RunningCommand(arguments: arguments, environment: environment.merging(extra) { $1 })
    }
}
