import Foundation
import Threads

#if canImport(Glibc)
    import Glibc
#endif

/// A child process of a test, started with posix_spawn. Every test starts its processes through here.
///
/// Not Foundation's `Process`: in Swift 6.3 its `run` crashed (a memmove past readdir's buffer while it scanned
/// /proc/self/fd) once the test process held about 1,350 descriptors, and the parallel run holds more; its children
/// also inherit the runner's blocked signals and ignored SIGPIPE. Here the child starts with an empty signal mask
/// and default dispositions, and keeps no descriptor of this process beyond its standard three: every pipe is made
/// close-on-exec and the child closes all others, so a child started beside another never holds that one's pipe
/// open (its reader would never see the end). The child is reaped here, never left a zombie; one dropped while it
/// runs is killed.
///
/// The names `isRunning`, `terminate`, `waitUntilExit`, `terminationStatus`, `terminationReason` mean what they
/// mean on `Process`, so that tests written against it read the same.
public final class ChildProcess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        case null
        /// A pipe the test writes to (`write`, `closeInput`, or `readToEnd(feeding:)`).
        case pipe
        /// A file, read from its start.
        case file(String)
    }

    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        case null
        /// A pipe the test reads (`readToEnd`, `readStandardOutput`).
        case pipe
        /// Appended to a file, created if missing.
        case file(String)
        /// For standard error: wherever standard output goes (one pipe or file for both).
        case standardOutput
    }

    /// How the child ended: its exit status, or the signal that ended it.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// `Process.TerminationReason`'s two cases.
    public enum TerminationReason: Sendable {
        case exit
        case uncaughtSignal
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    public let processIdentifier: pid_t
    private let state: Locked<State>

    /// This process's ends of the child's pipes (nil: none, or closed) and, once reaped, how the child ended.
    private struct State {
        var input: Int32?
        var output: Int32?
        var error: Int32?
        var termination: Termination?
    }

    /// Starts `executable` (a path; `/usr/bin/env` looks a name up on PATH) with `arguments`. `environment`: the
    /// child's whole environment, nil for this process's; `directory`: its working directory, nil for this one's.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        stdin: Input = .null, stdout: Output = .null, stderr: Output = .null
    ) throws {
        let glibc = try Glibc2.functions()
        var ours = State()
        var theirs: [Int32] = []
        defer { for descriptor in theirs { close(descriptor) } }
        func pipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard glibc.pipe2(&ends, O_CLOEXEC) == 0 else {
                let failure = SpawnError(description: "pipe2: \(String(cString: strerror(errno)))")
                for descriptor in [ours.input, ours.output, ours.error].compactMap({ $0 }) { close(descriptor) }
                throw failure
            }
            return (ends[0], ends[1])
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch stdin {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .pipe:
            Self.ignoreBrokenPipes
            let ends = try pipe()
            ours.input = ends.write
            theirs.append(ends.read)
            posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
        }
        for (target, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .standardOutput:
                precondition(target == 2, "only standard error can go where standard output goes")
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            case .pipe:
                let ends = try pipe()
                if target == 1 { ours.output = ends.read } else { ours.error = ends.read }
                theirs.append(ends.write)
                posix_spawn_file_actions_adddup2(&actions, ends.write, target)
            }
        }
        if let directory { _ = glibc.addChdir(&actions, directory) }
        _ = glibc.addCloseFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for variable in envp ?? [] { free(variable) } }
        var pid: pid_t = 0
        let code =
            if let envp { posix_spawn(&pid, executable, &actions, &attributes, argv, envp) } else {
                posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
        guard code == 0 else {
            for descriptor in [ours.input, ours.output, ours.error].compactMap({ $0 }) { close(descriptor) }
            throw SpawnError(description: "cannot run \(executable): \(String(cString: strerror(code)))")
        }
        processIdentifier = pid
        state = Locked(ours)
    }

    deinit {
        stop(signal: SIGKILL)
        state.withLock { state in
            for descriptor in [state.input, state.output, state.error].compactMap({ $0 }) { close(descriptor) }
        }
    }

    /// How the child ended, nil while it runs (reaps it if it has ended).
    public var termination: Termination? {
        state.withLock { state in
            if let ended = state.termination { return ended }
            var status: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(processIdentifier, &status, WNOHANG) } while reaped < 0 && errno == EINTR
            if reaped == processIdentifier {
                state.termination =
                    status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            } else if reaped < 0 {
                // ECHILD: reaped elsewhere (nothing in the tests does); its status is lost.
                state.termination = .exited(-1)
            }
            return state.termination
        }
    }

    public var isRunning: Bool { termination == nil }

    /// Sends `signal` unless the child has been reaped (its pid may then be another process's).
    public func send(_ signal: Int32) {
        state.withLock { state in
            if state.termination == nil { kill(processIdentifier, signal) }
        }
    }

    /// SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// Waits for the child's end, blocking the thread.
    @discardableResult
    public func wait() -> Termination {
        while true {
            if let ended = termination { return ended }
            // Waits without reaping, so that only `termination` reaps, under the lock: a pid is never reused
            // while `send` may still signal it.
            var info = siginfo_t()
            if waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0 && errno != EINTR {
                return termination ?? .exited(-1)
            }
        }
    }

    /// Waits up to `seconds` for the child's end; past them, kills it (SIGKILL), reaps it and returns nil.
    public func wait(timeout seconds: Double) -> Termination? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let ended = termination { return ended }
            usleep(5_000)
        }
        if let ended = termination { return ended }
        stop(signal: SIGKILL)
        return nil
    }

    /// Waits for the child's end on a thread of its own, never blocking one of the cooperative pool.
    public func exit() async -> Termination {
        if let ended = termination { return ended }
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.wait()) }.start()
        }
    }

    /// Sends `signal` (unless the child has ended) and waits for its end.
    @discardableResult
    public func stop(signal: Int32 = SIGKILL) -> Termination {
        send(signal)
        return wait()
    }

    public func waitUntilExit() { wait() }

    /// The exit status, or the number of the signal that ended the child; -1 while it runs.
    public var terminationStatus: Int32 {
        switch termination {
        case .exited(let status): status
        case .signalled(let signal): signal
        case nil: -1
        }
    }

    public var terminationReason: TerminationReason {
        if case .signalled = termination { .uncaughtSignal } else { .exit }
    }

    /// Writes `data` to the child's standard input (a `.pipe`), blocking until the pipe took all of it.
    public func write(_ data: Data) throws {
        guard let descriptor = state.withLock({ $0.input }) else {
            throw SpawnError(description: "the child's standard input is not an open pipe")
        }
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw SpawnError(description: "write: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// Closes the child's standard input (a `.pipe`): it reads its end.
    public func closeInput() {
        if let descriptor = state.withLock({ state in
            defer { state.input = nil }
            return state.input
        }) {
            close(descriptor)
        }
    }

    /// One read of the child's standard output (a `.pipe`): what is there, waiting for something; empty at its end.
    public func readStandardOutput() -> Data {
        guard let descriptor = state.withLock({ $0.output }) else { return Data() }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Data(buffer[0..<count]) : Data()
        }
    }

    /// Feeds `input` to the child's standard input (a `.pipe`; closed afterwards, also without input) while reading
    /// its standard output and error (each a `.pipe`) to their ends, all at once so that neither side waits for
    /// the other with a full pipe. Blocks the thread; does not wait for the child's end.
    public func readToEnd(feeding input: Data? = nil) -> (stdout: Data, stderr: Data) {
        var (inputEnd, outputEnd, errorEnd) = state.withLock { state in
            defer { (state.input, state.output, state.error) = (nil, nil, nil) }
            return (state.input, state.output, state.error)
        }
        let pending = [UInt8](input ?? Data())
        var offset = 0
        if let descriptor = inputEnd {
            if pending.isEmpty {
                close(descriptor)
                inputEnd = nil
            } else {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            }
        }
        var collected = (stdout: Data(), stderr: Data())
        var buffer = [UInt8](repeating: 0, count: 65536)
        while inputEnd != nil || outputEnd != nil || errorEnd != nil {
            var watched = [
                pollfd(fd: inputEnd ?? -1, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: outputEnd ?? -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: errorEnd ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&watched, nfds_t(watched.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if let descriptor = inputEnd, watched[0].revents != 0 {
                let written = pending.withUnsafeBytes {
                    Glibc.write(descriptor, $0.baseAddress! + offset, min(pending.count - offset, 65536))
                }
                if written > 0 { offset += written }
                if offset == pending.count || (written < 0 && errno != EINTR && errno != EAGAIN) {
                    close(descriptor)
                    inputEnd = nil
                }
            }
            for index in [1, 2] where watched[index].revents != 0 {
                guard let descriptor = index == 1 ? outputEnd : errorEnd else { continue }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    if index == 1 {
                        collected.stdout.append(contentsOf: buffer[0..<count])
                    } else {
                        collected.stderr.append(contentsOf: buffer[0..<count])
                    }
                } else if count == 0 || errno != EINTR {
                    close(descriptor)
                    if index == 1 { outputEnd = nil } else { errorEnd = nil }
                }
            }
        }
        for descriptor in [inputEnd, outputEnd, errorEnd].compactMap({ $0 }) { close(descriptor) }
        return collected
    }

    /// Runs `body` (which blocks) on a thread of its own and awaits its result.
    public static func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result(catching: body)) }.start()
        }
    }

    /// A broken pipe is an error to the writer (EPIPE), not the end of the test process: a child may exit before
    /// it read all its input. Children get the default back (`setsigdefault`).
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()
}

/// glibc functions that Swift's Glibc module leaves out (they are declared only for _GNU_SOURCE), found at run time.
private struct Glibc2: Sendable {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    let pipe2: Pipe2
    let addCloseFrom: AddCloseFrom
    let addChdir: AddChdir

    static func functions() throws -> Glibc2 {
        guard let functions = found else {
            throw ChildProcess.SpawnError(
                description:
                    "glibc lacks pipe2, posix_spawn_file_actions_addclosefrom_np or _addchdir_np (2.34 or later needed)"
            )
        }
        return functions
    }

    private static let found: Glibc2? = {
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
        }
        guard let pipe2 = symbol("pipe2", as: Pipe2.self),
            let addCloseFrom = symbol("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self),
            let addChdir = symbol("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)
        else { return nil }
        return Glibc2(pipe2: pipe2, addCloseFrom: addCloseFrom, addChdir: addChdir)
    }()
}
