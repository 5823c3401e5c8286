import Foundation

/// Runs curl (or any tool) without blocking a cooperative thread: output goes to files, the wait to a handler.
enum Tool {
    struct Outcome { var status: Int32; var stdout: String; var stderr: String }

    static func run(_ executable: String, _ arguments: [String], stdinPath: String? = nil) async throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpserver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out"), err = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let stdinPath { process.standardInput = FileHandle(forReadingAtPath: stdinPath) }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return Outcome(status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                       stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// curl, quiet, never through a proxy, with a generous overall deadline.
    static func curl(_ arguments: [String], stdinPath: String? = nil) async throws -> Outcome {
        try await run("/usr/bin/curl", ["-sS", "--noproxy", "*", "--max-time", "120"] + arguments, stdinPath: stdinPath)
    }
}

/// A condition flipped by one side and awaited (by polling, with a generous deadline) by the other.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }

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
