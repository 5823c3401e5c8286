import Foundation

/// Runs a command-line tool (curl, promtool, a shell pipeline) for a test to its end: its exit status and output,
/// both pipes read at once so that a large output cannot fill one and stall the tool.
///
/// Launches are not serialized: posix_spawn needs no lock (Foundation's launcher did, and crashed anyway).
public enum ToolRun {
    public struct Outcome: Sendable {
        /// The exit status, or the number of the signal that ended the tool.
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `executable` to its end, blocking the calling thread; `stdin` (text) or `stdinPath` as its input.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil,
        stdinPath: String? = nil
    ) throws -> Outcome {
        let input: ChildProcess.Input = stdinPath.map { .file($0) } ?? (stdin == nil ? .null : .pipe)
        let child = try ChildProcess(executable, arguments, stdin: input, stdout: .pipe, stderr: .pipe)
        let output = child.readToEnd(feeding: stdin.map { Data($0.utf8) })
        child.wait()
        return Outcome(
            status: child.terminationStatus, stdout: String(decoding: output.stdout, as: UTF8.self),
            stderr: String(decoding: output.stderr, as: UTF8.self))
    }

    /// Like `run`, on a thread of its own instead of blocking one of the cooperative pool.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil,
        stdinPath: String? = nil
    ) async throws -> Outcome {
        try await ChildProcess.onThreadOfItsOwn {
            try run(executable, arguments, stdin: stdin, stdinPath: stdinPath) as Outcome
        }
    }
}
