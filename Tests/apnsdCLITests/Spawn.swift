import CLITestSupport
import Foundation
import TestSupport

/// Runs the built `apnsd` under GNU time, to learn its peak resident memory. (Not `wait4` on a child of the
/// test process: Linux carries the parent's high-water mark into a child spawned from it, so every child would
/// seem as large as the test runner.)
enum Spawn {
    struct Outcome {
        var status: Int32
        var stderr: String
        /// Peak resident set size of apnsd, in KiB.
        var peakKiB: Int
    }

    /// Runs `apnsd arguments` with `cli`'s environment, standard input from `stdinPath`, and waits for it.
    static func apnsd(_ cli: CLI, _ arguments: [String], stdinPath: String = "/dev/null") throws -> Outcome {
        let report = cli.directory.appendingPathComponent("time-\(UUID().uuidString)").path
        let process = try ChildProcess(
            "/usr/bin/time", ["-f", "%M", "-o", report, CLI.binaries.appendingPathComponent("apnsd").path] + arguments,
            environment: cli.environment, directory: cli.directory.path, stdin: .file(stdinPath), stderr: .pipe)
        let stderr = process.readToEnd().stderr
        process.wait()
        let peak =
            (try? String(contentsOfFile: report, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? Int.max
        return Outcome(
            status: process.terminationStatus, stderr: String(decoding: stderr, as: UTF8.self),
            peakKiB: peak)
    }
}
