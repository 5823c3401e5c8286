#if canImport(Glibc)
    import Glibc
#endif

/// The fuzz targets' bodies: each feeds one input to a library entry point and traps (an oracle failure) when
/// the answer breaks a rule the entry point promises. The FuzzX executables hand them to libFuzzer; the
/// FuzzCorpusTests replay the seed corpus and the regressions through them as part of the normal suite.
///
/// Inputs that are merely refused are fine: the entry points throw typed errors, so "throws only IntakeError"
/// and the like hold by construction; what is checked is that nothing crashes, hangs or leaks, and that what is
/// accepted is what the entry point claims.
public enum FuzzTargets {
    /// The targets by the name `scripts/fuzz` and the seed folders (Fixtures/fuzz/NAME) use.
    public static let all: [(name: String, run: @Sendable ([UInt8]) -> Void)] = [
        ("payload", payload), ("import-line", importLine), ("config", config), ("key", key),
        ("mock-request", mockRequest),
    ]
}

/// Traps with `message` (libFuzzer records a crash) when `condition` is false. Unlike `assert`, it stays in
/// release builds, which is what the fuzzers run.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line)
{
    if !condition { fatalError("oracle: \(message())", file: file, line: line) }
}

/// Runs a target over files, as libFuzzer would: the executables' `main` when they are built without
/// libFuzzer, and a regression runner (`FuzzPayload crash-1234 Fixtures/fuzz/payload`).
public enum FuzzReplay {
    /// Feeds every file named in `arguments` (directories: every file in them, recursively) to `body`;
    /// arguments starting with "-" (libFuzzer's flags) are ignored. Returns how many inputs ran.
    @discardableResult
    public static func run(arguments: [String], _ body: ([UInt8]) -> Void) -> Int {
        var count = 0
        for argument in arguments where !argument.hasPrefix("-") {
            for path in files(argument) {
                guard let bytes = read(path) else {
                    printError("cannot read \(path)")
                    exit(1)
                }
                body(bytes)
                count += 1
            }
        }
        return count
    }

    /// The executables' `main` when not fuzzing.
    public static func main(_ body: ([UInt8]) -> Void) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.contains(where: { !$0.hasPrefix("-") }) else {
            printError(
                "usage: \(CommandLine.arguments[0]) FILE|DIR... (built without libFuzzer: replays the inputs; scripts/fuzz builds the fuzzer)"
            )
            exit(64)
        }
        let count = run(arguments: arguments, body)
        print("replayed \(count) inputs, no failure")
        exit(0)
    }

    private static func printError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The regular files at `path`, sorted (a directory is walked recursively, skipping dot files).
    public static func files(_ path: String) -> [String] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [path] }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return [path] }
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var found: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            found.append(contentsOf: files(path + "/" + name))
        }
        return found.sorted()
    }

    /// The bytes of the file at `path`, or nil when it cannot be read.
    public static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes.append(contentsOf: buffer[..<count]) }
            if count < buffer.count { return ferror(file) == 0 ? bytes : nil }
        }
    }
}
