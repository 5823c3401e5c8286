import Commands
import Foundation
import Logging
import TestSupport
import Threads

#if canImport(Glibc)
    import Glibc
#endif

/// apnsd's command line in a scratch folder with its own database, as an operator or a cron job runs it: in
/// process by default (`run`: `Apnsd.main` with this folder's environment, its output captured), or as the built
/// binary where the process itself is under test (`exec`, `start`: exit on a signal, another user, memory).
public struct CLI: Sendable {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    public let directory: URL
    public var environment: [String: String]
    /// Whether `run` tells the command its standard error is the journal (`StandardStreams.errorIsJournal`).
    public var errorIsJournal = false

    public init() throws {
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

    public var database: String { environment["APNSD_DATABASE"]! }

    /// Runs `apnsd ARGUMENTS` in this process: what it prints and logs is captured, `stdin` is its standard input.
    /// Relative paths are the test process's, not the scratch folder's: give paths from `write` or `directory`.
    @discardableResult
    public func run(_ arguments: String..., stdin: String? = nil, environment extra: [String: String] = [:])
        async throws -> Result
    {
        try await run(arguments, stdin: stdin, environment: extra)
    }

    public func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:])
        async throws -> Result
    {
        var input: FileHandle?
        if let stdin {
            let path = directory.appendingPathComponent("in-\(UUID().uuidString)")
            try stdin.write(to: path, atomically: true, encoding: .utf8)
            input = try FileHandle(forReadingFrom: path)
        }
        defer { try? input?.close() }
        let out = Locked("")
        let err = Locked("")
        let status = await withTaskExecutorPreference(globalConcurrentExecutor) {
            await Self.main(
                arguments, output: out, error: err, errorIsJournal: errorIsJournal,
                invocation: Invocation(
                    environment: environment.merging(extra) { $1 }, standardInput: input ?? .nullDevice))
        }
        return Result(status: status, stdout: out.withLock { $0 }, stderr: err.withLock { $0 })
    }

    /// `Apnsd.main` with its output appended to `output` and `error`, and `invocation` for its process. Callers run
    /// it on the shared pool, whatever executor the test prefers: a command's tasks must not queue behind the blocking
    /// tests of `.offThePool` (two threads), which may be waiting for this very command.
    static func main(
        _ arguments: [String], output: Locked<String>, error: Locked<String>, errorIsJournal: Bool = false,
        invocation: Invocation
    ) async -> Int32 {
        let streams = StandardStreams(
            output: { text in output.withLock { $0 += text } }, error: { text in error.withLock { $0 += text } },
            errorIsJournal: errorIsJournal)
        return await StandardStreams.$current.withValue(streams) {
            await Invocation.$current.withValue(invocation) { await Apnsd.main(arguments) }
        }
    }

    /// The products folder: the test bundle sits beside the executables.
    public static let binaries: URL = {
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

    /// Runs the built binary, in the scratch folder, and waits for it.
    @discardableResult
    public func exec(_ arguments: String..., stdin: String? = nil, environment extra: [String: String] = [:]) throws
        -> Result
    {
        try exec(arguments, stdin: stdin, environment: extra)
    }

    public func exec(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]) throws
        -> Result
    {
        try execute(Self.binaries.appendingPathComponent("apnsd"), arguments, stdin: stdin, environment: extra)
    }

    /// Runs `executable` with this folder's environment and waits for it.
    public func execute(
        _ executable: URL, _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]
    ) throws -> Result {
        var input = ChildProcess.Input.null
        if let stdin {
            let path = directory.appendingPathComponent("in-\(UUID().uuidString)")
            try stdin.write(to: path, atomically: true, encoding: .utf8)
            input = .file(path.path)
        }
        let child = try ChildProcess(
            executable.path, arguments, environment: environment.merging(extra) { $1 }, directory: directory.path,
            stdin: input, stdout: .pipe, stderr: .pipe)
        let output = child.readToEnd()
        child.wait()
        return Result(
            status: child.terminationStatus, stdout: String(decoding: output.stdout, as: UTF8.self),
            stderr: String(decoding: output.stderr, as: UTF8.self))
    }

    /// Like `exec`, on a thread of its own instead of blocking one of the cooperative pool.
    @discardableResult
    public func execAsync(_ arguments: String..., stdin: String? = nil, environment extra: [String: String] = [:])
        async throws -> Result
    {
        try await execAsync(arguments, stdin: stdin, environment: extra)
    }

    public func execAsync(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:])
        async throws -> Result
    {
        try await ChildProcess.onThreadOfItsOwn { try exec(arguments, stdin: stdin, environment: extra) }
    }

    /// Starts the binary in the background (its output and errors to one file in the scratch folder).
    public func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildProcess {
        let log = directory.appendingPathComponent("background-\(UUID().uuidString).log")
        return try ChildProcess(
            Self.binaries.appendingPathComponent("apnsd").path, arguments,
            environment: environment.merging(extra) { $1 }, directory: directory.path, stdout: .file(log.path),
            stderr: .standardOutput)
    }

    public func write(_ name: String, _ contents: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A path in the scratch folder.
    public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    public func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    public static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }
}
