import Foundation
import TestSupport

/// curl for the HTTP server's tests.
enum Tool {
    /// `executable` to its end, awaited (ToolRun).
    static func run(_ executable: String, _ arguments: [String], stdinPath: String? = nil) async throws
        -> ToolRun.Outcome
    {
        try await ToolRun.run(executable, arguments, stdinPath: stdinPath)
    }

    /// curl, quiet, never through a proxy, with a generous overall deadline.
    static func curl(_ arguments: [String], stdinPath: String? = nil) async throws -> ToolRun.Outcome {
        try await ToolRun.run(
            "/usr/bin/curl", ["-sS", "--noproxy", "*", "--max-time", "120"] + arguments, stdinPath: stdinPath)
    }
}

/// A condition flipped by one side and awaited (by polling, with a generous deadline) by the other.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Waits until set; false if `seconds` pass first.
    @discardableResult
    func wait(seconds: Double = 60) async -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        while !isSet {
            if ContinuousClock.now > end { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
