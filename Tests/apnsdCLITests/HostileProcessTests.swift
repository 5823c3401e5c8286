import CLITestSupport
import Foundation
import TestSupport
import Testing

/// Hostile input where the process itself is what is checked: the memory a huge input costs the binary, and the
/// proxy libcurl takes from the process's environment.
@Suite(.offThePool) struct HostileProcessTests {
    static let topic = "com.example.cli"

    /// A database with one device and one queued send.
    func prepared() async throws -> CLI {
        let cli = try CLI()
        try #require(await cli.run("init").status == 0)
        try #require(await cli.run("device", "add", Tokens.hex(1), "--topic", Self.topic).status == 0)
        try #require(
            await cli.run("send", Tokens.hex(1), "--topic", Self.topic, "--payload", #"{"aps":{"alert":"hi"}}"#).status
                == 0)
        return cli
    }

    @Test func anEnvironmentProxyIsIgnoredUnlessAskedFor() async throws {
        // A dead proxy in the environment: apns.proxy defaults to none, so libcurl must not use it. The binary: libcurl
        // reads the process's environment.
        let cli = try await prepared()
        defer { cli.cleanUp() }
        let key = CLI.fixture("keys/AuthKey_TESTKEY001.p8")
        let unreachable = "https://127.0.0.1:1"
        let proxied = try await cli.execAsync(
            [
                "worker", "--until-idle", "--key-file", key, "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01",
                "--production-url", unreachable, "--retry-cap", "0.3", "--retry-base", "0.05",
            ],
            environment: ["https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"])
        // Unreachable APNs (not the proxy) is what the worker reports: it connected directly.
        #expect(proxied.status == 1, "\(proxied.stderr)")
        #expect(proxied.stderr.contains("APNs unreachable"), "\(proxied.stderr)")
        #expect(proxied.stderr.contains("127.0.0.1 port 1 "), "\(proxied.stderr)")
        #expect(!proxied.stderr.contains("port 9"), "libcurl went through the environment's proxy: \(proxied.stderr)")
        // Asked for, the environment's proxy is used.
        let asked = try await cli.execAsync(
            [
                "worker", "--until-idle", "--key-file", key, "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01",
                "--production-url", unreachable, "--retry-cap", "0.3", "--retry-base", "0.05", "--proxy", "environment",
            ],
            environment: ["https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"])
        #expect(asked.status == 1 && asked.stderr.contains("port 9"), "\(asked.stderr)")
    }

    @Test(.measuresTime, arguments: ["payload", "key", "import"])
    func oversizedInputIsRefusedInBoundedMemory(kind: String) async throws {
        let cli = try await prepared()
        defer { cli.cleanUp() }
        // Sparse files: 400 MB that cost no disk, read as zeros (no newline anywhere).
        let big = cli.directory.appendingPathComponent("big-\(kind)").path
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: kind == "import" ? 256 << 20 : 400 << 20)
        try handle.close()
        let outcome: Spawn.Outcome
        switch kind {
        case "payload":
            outcome = try Spawn.apnsd(
                cli, ["send", Tokens.hex(1), "--topic", Self.topic, "--payload", "@-"], stdinPath: big)
            #expect(outcome.status == 64)
        case "key":
            outcome = try Spawn.apnsd(
                cli, ["worker", "--until-idle", "--key-file", big, "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01"])
            #expect(outcome.status == 1)
        default:
            outcome = try Spawn.apnsd(cli, ["device", "import", "-", "--topic", Self.topic], stdinPath: big)
            #expect(outcome.status == 1)
            #expect(outcome.stderr.contains("longer than 1024 bytes"))
        }
        #expect(outcome.peakKiB < 64 * 1024, "\(kind): peak RSS \(outcome.peakKiB) KiB")
        #expect(!outcome.stderr.isEmpty)
    }
}
