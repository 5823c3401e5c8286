import Foundation
import QueueModel
import QueueRules

#if canImport(Glibc)
    import Glibc
#endif

/// The one place that reads `/proc`: this process's identity, read once when the first worker starts, and what
/// this host sees of another worker's pid. Anything unreadable is nil: that worker is then judged by its heartbeat.
extension ProcessIdentity {
    /// This process: host name, pid, boot id, pid namespace and start time.
    public static let current = ProcessIdentity(
        host: Worker.hostName, pid: Int(getpid()), bootID: bootID(), pidNamespace: pidNamespace(),
        startTime: ProcState.read("/proc/self/stat")?.startTime)

    private static func bootID() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
    }

    private static func pidNamespace() -> Int64? {
        var status = stat()
        guard stat("/proc/self/ns/pid", &status) == 0 else { return nil }
        return Int64(bitPattern: UInt64(status.st_ino))
    }
}

extension WorkerRecord {
    /// Whether this host sees the worker's process gone (`Liveness.isGone`): dead whatever its heartbeat, and taken
    /// over by the next worker that looks. Reads `/proc`.
    public var processIsGone: Bool {
        let ours = ProcessIdentity.current
        guard Liveness.canSee(process, from: ours) else { return false }
        return Liveness.isGone(process, from: ours, process: ProcessState.probe(pid))
    }
}

extension ProcessState {
    /// What this host sees of `pid`: gone when no process has it (`kill(pid, 0)` → ESRCH) or only its zombie is
    /// left; nil when nothing can be told.
    static func probe(_ pid: Int) -> ProcessState? {
        guard pid > 0, pid <= Int(Int32.max) else { return nil }
        if kill(pid_t(pid), 0) != 0 && errno == ESRCH { return .gone }
        guard let stat = ProcState.read("/proc/\(pid)/stat") else { return .running(startTime: nil) }
        return stat.exited ? .gone : .running(startTime: stat.startTime)
    }
}

/// The fields of `/proc/PID/stat` the liveness judgement reads.
struct ProcState {
    /// Field 3 is Z (zombie) or X (dead): the process has exited.
    var exited: Bool
    /// Field 22: when the process started, in clock ticks after boot.
    var startTime: Int64

    static func read(_ path: String) -> ProcState? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return parse(text)
    }

    /// Parses the line; the command name (field 2, in parentheses) may itself hold spaces and parentheses, so the
    /// fields are counted after its last ')'.
    static func parse(_ text: String) -> ProcState? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (state), so field 22 is fields[19].
        guard fields.count > 19, let start = Int64(fields[19]) else { return nil }
        return ProcState(exited: fields[0] == "Z" || fields[0] == "X", startTime: start)
    }
}
