import Foundation
import TestSupport

/// Runs a command line tool to completion with a deadline, its output collected in files (no pipe deadlocks).
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: TimeInterval
}

enum ProcessRunner {
    /// Runs `tool` (looked up on PATH) with `arguments`; kills it after `timeout` seconds.
    static func run(_ tool: String, _ arguments: [String], in directory: TempDirectory, timeout: TimeInterval = 30)
        throws -> ProcessResult
    {
        let id = UUID().uuidString
        let name = URL(fileURLWithPath: tool).lastPathComponent
        let stdoutPath = directory.path("\(name)-\(id).out")
        let stderrPath = directory.path("\(name)-\(id).err")
        let start = Date()
        let process = try ChildProcess(
            tool.hasPrefix("/") ? tool : "/usr/bin/env", tool.hasPrefix("/") ? arguments : [tool] + arguments,
            stdout: .file(stdoutPath), stderr: .file(stderrPath))
        guard process.wait(timeout: timeout) != nil else {
            throw HarnessError("\(tool) did not finish within \(timeout) s")
        }
        let seconds = Date().timeIntervalSince(start)
        let out = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return ProcessResult(status: process.terminationStatus, stdout: out, stderr: err, seconds: seconds)
    }
}
