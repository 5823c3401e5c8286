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
        let err = cli.directory.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", report, CLI.binaries.appendingPathComponent("apnsd").path] + arguments
        process.environment = cli.environment
        process.currentDirectoryURL = cli.directory
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: stdinPath))
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: err)
        try ToolRun.launch(process)
        process.waitUntilExit()
        let peak =
            (try? String(contentsOfFile: report, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? Int.max
        return Outcome(
            status: process.terminationStatus, stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "",
            peakKiB: peak)
    }
}
