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
        try prepared.process.run()
        prepared.process.waitUntilExit()
        return prepared.outcome(prepared.process.terminationStatus)
    }

    /// Like `run`, awaiting the end instead of blocking a thread of the cooperative pool: the blocking `run` goes to a
    /// thread of its own. (Not `Process.terminationHandler`: a process that ends through it is never freed, a cycle
    /// inside Foundation that LeakSanitizer reports once thousands of them have run.)
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil,
        stdinPath: String? = nil
    ) async throws -> Outcome {
        try await offThePool { try run(executable, arguments, stdin: stdin, stdinPath: stdinPath) }
    }

    /// Runs blocking `work` on a thread of its own and awaits its result, leaving the cooperative pool free. (Not a
    /// dispatch queue: on Linux the cooperative pool draws its threads from dispatch's, which many blocked waits
    /// would use up, so that the servers under test could not answer.)
    public static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

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
