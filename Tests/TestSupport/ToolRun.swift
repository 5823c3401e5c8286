import Foundation

/// Runs a command-line tool (curl, promtool, a shell pipeline) for a test: its exit status and output, captured in
/// files so that a large output cannot fill a pipe and stall the tool.
public enum ToolRun {
    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `executable` to its end, blocking the calling thread; `stdin` (text) or `stdinPath` as its input.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil,
        stdinPath: String? = nil
    ) throws -> Outcome {
        let prepared = try Prepared(executable, arguments, stdin: stdin, stdinPath: stdinPath)
        defer { prepared.remove() }
        try launch(prepared.process)
        prepared.process.waitUntilExit()
        return prepared.outcome(prepared.process.terminationStatus)
    }

    /// Like `run`, awaiting the end instead of blocking a thread of the cooperative pool.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil,
        stdinPath: String? = nil
    ) async throws -> Outcome {
        let prepared = try Prepared(executable, arguments, stdin: stdin, stdinPath: stdinPath)
        defer { prepared.remove() }
        return prepared.outcome(try await status(of: prepared.process))
    }

    /// Runs `process` and awaits its exit status without blocking a thread.
    public static func status(of process: Process) async throws -> Int32 {
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { ended in
                ended.terminationHandler = nil
                continuation.resume(returning: ended.terminationStatus)
            }
            do { try launch(process) } catch { continuation.resume(throwing: error) }
        }
        // Returns at once (it has ended) and lets Foundation free what it keeps for a running process: without it,
        // LeakSanitizer counted every awaited process, its handler and its files as leaked.
        process.waitUntilExit()
        return status
    }

    /// Starts `process`, one launch at a time: Foundation's `Process.run` reads the environment and sets up its
    /// monitoring in shared state, and launches from many tasks at once were seen to corrupt it (a test run stalled
    /// inside one, another crashed in its memmove). Every test starts its processes through here or `exclusively`.
    public static func launch(_ process: Process) throws {
        try exclusively { try process.run() }
    }

    /// Runs `body` (a `posix_spawn`) while no other test launches a process.
    public static func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        launching.lock()
        defer { launching.unlock() }
        return try body()
    }

    private static let launching = NSLock()

    /// A process with its output files in a scratch folder of its own.
    private struct Prepared {
        let process = Process()
        let directory: URL
        let out: URL
        let err: URL

        init(_ executable: String, _ arguments: [String], stdin: String?, stdinPath: String?) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-tool-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            out = directory.appendingPathComponent("out")
            err = directory.appendingPathComponent("err")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            if let stdin {
                let input = directory.appendingPathComponent("in")
                try stdin.write(to: input, atomically: true, encoding: .utf8)
                process.standardInput = try FileHandle(forReadingFrom: input)
            } else if let stdinPath {
                process.standardInput = FileHandle(forReadingAtPath: stdinPath)
            } else {
                process.standardInput = FileHandle.nullDevice
            }
        }

        func outcome(_ status: Int32) -> Outcome {
            Outcome(
                status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }
}
