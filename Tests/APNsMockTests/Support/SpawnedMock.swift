import APNsMock
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Trait where Self == ConditionTrait {
    /// For a test that bounds the simulator's memory or CPU: sanitizers multiply both, so such a test skips under
    /// one (detected by its runtime, or announced by the caller with APNSD_SANITIZER).
    static var boundsResources: Self {
        .enabled(
            if: !Sanitizers.active && ProcessInfo.processInfo.environment["APNSD_SANITIZER"] == nil,
            "bounds memory or CPU; skipped under a sanitizer")
    }
}

/// The resident set and CPU time of a process, from /proc.
enum ProcessUsage {
    /// VmRSS in bytes, or nil when the process is gone.
    static func residentBytes(_ pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kib * 1024
    }

    /// User plus system CPU seconds, or nil when the process is gone.
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": field 3 is the state; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// The built `apns-mock` running as a child, on a free loopback port with a throwaway CA, so its memory and CPU
/// are its own (the test process runs other suites in parallel).
final class SpawnedMock {
    let directory: TempDirectory
    let running: ApnsMockExecutableTests.Running
    let port: Int
    let caPath: String
    let curl: Curl
    let authorization: String

    /// `extra` goes after the usual flags; `fileLimit` runs it under `ulimit -n`.
    init(_ extra: [String] = [], fileLimit: Int? = nil) throws {
        let binary = try #require(ApnsMockExecutableTests.binary, "apns-mock not built")
        directory = try TempDirectory("process")
        caPath = directory.path("ca.pem")
        let arguments =
            [
                "--listen", "127.0.0.1:0", "--ca-out", caPath, "--key-file", Fixture.keyPath,
                "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01",
            ] + extra
        if let fileLimit {
            running = try ApnsMockExecutableTests.Running(
                binary: "/bin/sh",
                arguments: ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", binary] + arguments,
                directory: directory)
        } else {
            running = try ApnsMockExecutableTests.Running(binary: binary, arguments: arguments, directory: directory)
        }
        port = try running.waitForPort()
        curl = Curl(baseURL: "https://127.0.0.1:\(port)", caPath: caPath, directory: directory)
        authorization = try Fixture.authorization()
    }

    var pid: pid_t { running.process.processIdentifier }
    var residentBytes: Int { ProcessUsage.residentBytes(pid) ?? 0 }
    var cpuSeconds: Double { ProcessUsage.cpuSeconds(pid) ?? 0 }

    /// One push over a fresh curl connection; its status (0 when curl failed).
    func push(_ seed: String = "5e") throws -> Int {
        try curl.send(CurlRequest.push(token: Fixture.token(seed), authorization: authorization)).status
    }

    /// `GET /_mock/stats` over a fresh curl connection.
    func stats() throws -> MockStats {
        let response = try curl.send(CurlRequest(method: "GET", path: "/_mock/stats"))
        guard response.status == 200 else {
            throw HarnessError("stats answered \(response.status): \(response.bodyText)")
        }
        return try JSONDecoder().decode(MockStats.self, from: Data(response.body))
    }

    func stop() {
        running.stop()
        directory.remove()
    }
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
