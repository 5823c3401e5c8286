import Foundation
import TestSupport

/// Runs the built `apnsd` binary in a scratch folder with its own database, as an operator or a cron job would.
struct CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    let directory: URL
    var environment: [String: String]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        environment = [
            "PATH": "/usr/bin:/bin", "APNSD_DATABASE": directory.appendingPathComponent("apnsd.sqlite").path,
        ]
        // A sanitized build's apnsd is sanitized too: it needs the same runtime options (suppressions, no exit delay).
        for name in ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
    }

    var database: String { environment["APNSD_DATABASE"]! }

    /// The products folder: the test bundle sits beside the executables.
    static let binaries: URL = {
        let candidates = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap { $0 }
        for candidate in candidates {
            var folder = candidate.deletingLastPathComponent()
            for _ in 0..<4 {
                if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("apnsd").path) {
                    return folder
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        fatalError(
            "apnsd binary not found next to the test bundle; build it first (scripts/test does: swift build --build-tests)"
        )
    }()

    @discardableResult
    func run(_ arguments: String..., stdin: String? = nil, environment extra: [String: String] = [:]) throws -> Result {
        try run(arguments, stdin: stdin, environment: extra)
    }

    func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]) throws -> Result {
        try execute(Self.binaries.appendingPathComponent("apnsd"), arguments, stdin: stdin, environment: extra)
    }

    /// Runs apnsd as `nobody` (`OtherUser`), in groups `groups` only, from a copy of the binary in the scratch
    /// folder: nobody may not be able to reach the build folder (a checkout under /root).
    @discardableResult
    func runAsOtherUser(_ arguments: String..., groups: [gid_t] = []) throws -> Result {
        let copy = try Self.copyForOtherUsers.get()
        return try execute(
            URL(fileURLWithPath: OtherUser.setpriv), OtherUser.arguments(groups: groups) + [copy.binary] + arguments,
            environment: copy.sanitizerOptions)
    }

    /// The apnsd binary copied once to a folder any user may enter (the build folder may not be: a clone in a
    /// `mktemp -d` folder is 0700), with the sanitizer suppression files a sanitized apnsd reads (the options
    /// rewritten to point at the copies). Written through close-on-exec descriptors, so that no process another test
    /// spawns meanwhile inherits one and keeps the copy busy.
    private static let copyForOtherUsers:
        Swift.Result<(binary: String, sanitizerOptions: [String: String]), any Error> = Swift.Result {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-bin-\(getpid())")
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let binary = folder.appendingPathComponent("apnsd").path
            try copy(binaries.appendingPathComponent("apnsd").path, to: binary, mode: 0o755)
            var options: [String: String] = [:]
            for name in ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS"] {
                guard let value = ProcessInfo.processInfo.environment[name] else { continue }
                options[name] = try value.split(separator: ":").map { option in
                    guard option.hasPrefix("suppressions=") else { return String(option) }
                    let source = String(option.dropFirst("suppressions=".count))
                    let target = folder.appendingPathComponent("\(name).supp").path
                    try copy(source, to: target, mode: 0o644)
                    return "suppressions=" + target
                }.joined(separator: ":")
            }
            return (binary, options)
        }

    private static func copy(_ source: String, to target: String, mode: mode_t) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    private func execute(
        _ executable: URL, _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]
    ) throws -> Result {
        let run = try prepare(executable, arguments, stdin: stdin, environment: extra)
        try run.process.run()
        run.process.waitUntilExit()
        return run.result(run.process.terminationStatus)
    }

    /// Like `run`, awaiting apnsd's end instead of blocking a thread of the cooperative pool (which async tests
    /// elsewhere in the run need meanwhile).
    @discardableResult
    func runAsync(_ arguments: String..., stdin: String? = nil, environment extra: [String: String] = [:]) async throws
        -> Result
    {
        try await runAsync(arguments, stdin: stdin, environment: extra)
    }

    func runAsync(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]) async throws
        -> Result
    {
        let run = try prepare(
            Self.binaries.appendingPathComponent("apnsd"), arguments, stdin: stdin, environment: extra)
        return run.result(try await ToolRun.status(of: run.process))
    }

    /// A process ready to run, its output going to files in the scratch folder; `result` reads them back.
    private func prepare(_ executable: URL, _ arguments: [String], stdin: String?, environment extra: [String: String])
        throws
        -> (process: Process, result: @Sendable (Int32) -> Result)
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = environment.merging(extra) { $1 }
        let out = directory.appendingPathComponent("out-\(UUID().uuidString)")
        let err = directory.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let stdin {
            let input = directory.appendingPathComponent("in-\(UUID().uuidString)")
            try stdin.write(to: input, atomically: true, encoding: .utf8)
            process.standardInput = try FileHandle(forReadingFrom: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        return (
            process,
            { status in
                Result(
                    status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                    stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
            }
        )
    }

    /// Starts apnsd in the background (output to files in the scratch folder).
    func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = Self.binaries.appendingPathComponent("apnsd")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = environment.merging(extra) { $1 }
        let log = directory.appendingPathComponent("background-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    func write(_ name: String, _ contents: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }
}
