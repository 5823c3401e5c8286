import APNsMock
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// A database with registered devices (and usually one campaign to all of them) and an in-process apns-mock
/// that the `apnsd` processes send to.
public struct Fleet {
    public var cli: CLI
    public let server: MockServer
    /// The mock's configuration: a test that stops `server` starts another with it on the same port (APNs back).
    public let mockConfiguration: MockConfiguration
    public let devices: Int
    /// The campaign to every device, when one was created.
    public let campaign: Int?

    public static let topic = "com.example.fleet"
    public static let payload = #"{"aps":{"alert":"fleet"}}"#

    /// `database`: where the file goes (another filesystem), instead of the scratch folder.
    /// `scenario`: how the mock answers given tokens (429 then 200, 400 BadDeviceToken, …).
    public init(
        devices: Int, rate: Int, campaign: Bool = true, database: String? = nil, scenario: Scenario = Scenario()
    ) async throws {
        var cli = try CLI()
        let key = try SigningKey(contentsOfFile: CLI.fixture("keys/AuthKey_TESTKEY001.p8"))
        let identity = try TLSIdentity.throwaway()
        let ca = try cli.write("ca.pem", identity.caCertificatePEM!)
        var configuration = MockConfiguration(
            identity: identity,
            verifier: JWTVerifier(
                key: key, credential: try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01")),
            // The tests compare the log with what the mock saw, token by token.
            scenario: scenario, statsTokens: true)
        let server = try MockServer(configuration: configuration)
        configuration.port = server.port
        let url = "https://127.0.0.1:\(server.port)"
        cli.environment.merge([
            "APNSD_KEY_FILE": CLI.fixture("keys/AuthKey_TESTKEY001.p8"), "APNSD_KEY_ID": "TESTKEY001",
            "APNSD_TEAM_ID": "TESTTEAM01",
            "APNSD_TOPIC": Self.topic, "APNSD_PRODUCTION_URL": url, "APNSD_DEVELOPMENT_URL": url, "APNSD_CA_FILE": ca,
            "APNSD_CONNECTIONS": "1", "APNSD_RATE": String(rate), "APNSD_RETRY_BASE": "0.05", "APNSD_RETRY_CAP": "0.5",
            "APNSD_WORKER_HEARTBEAT": "0.2", "APNSD_WORKER_LEASE": "1.5",
        ]) { $1 }
        if let database { cli.environment["APNSD_DATABASE"] = database }
        self.cli = cli
        self.server = server
        mockConfiguration = configuration
        self.devices = devices
        do {
            try #require(await cli.run("init").status == 0)
            if devices > 0 {
                let tokens = (1...devices).map { Tokens.hex($0) }.joined(separator: "\n")
                let imported = try await cli.run(["device", "import", "-"], stdin: tokens)
                try #require(imported.status == 0, "\(imported.stderr)")
            }
            if campaign {
                let created = try await cli.run("campaign", "create", "--all", "--payload", Self.payload)
                try #require(created.status == 0, "\(created.stderr)")
                let id: Int = try #require(
                    Int(created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
                    "campaign create printed \(created.stdout)")
                self.campaign = id
            } else {
                self.campaign = nil
            }
        } catch {
            server.stop()
            cli.cleanUp()
            throw error
        }
    }

    public func stop() {
        server.stop()
        cli.cleanUp()
    }

    /// Requests the mock answered 200 so far.
    public var accepted: Int { server.stats().totals.statuses["200"] ?? 0 }

    /// `apnsd worker ARGUMENTS` in this process, in the background.
    public func runWorker(_ arguments: [String] = [], environment: [String: String] = [:]) -> RunningCommand {
        cli.launch(["worker"] + arguments, environment: environment)
    }

    /// `apnsd worker ARGUMENTS` as a process of its own, in the background.
    public func startWorker(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> BackgroundWorker
    {
        try BackgroundWorker(cli: cli, arguments: ["worker"] + arguments, environment: environment)
    }

    // MARK: - Reading what apnsd says

    public static func json(_ line: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    /// `apnsd log --json`, one object per delivery.
    public func log(_ extra: String...) async throws -> [[String: Any]] {
        let result = try await cli.run(["log", "--json"] + extra)
        try #require(result.status == 0, "\(result.stderr)")
        return try result.lines.map(Self.json)
    }

    /// `apnsd workers --json`.
    public func workers() async throws -> [[String: Any]] {
        let result = try await cli.run("workers", "--json")
        try #require(result.status == 0, "\(result.stderr)")
        return try result.lines.map(Self.json)
    }

    /// `apnsd campaign show ID --json`.
    public func show(_ id: Int) async throws -> [String: Any] {
        let result = try await cli.run("campaign", "show", String(id), "--json")
        try #require(result.status == 0, "\(result.stderr)")
        return try Self.json(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Whether the database is PostgreSQL (a URL) rather than a SQLite file.
    public var isPostgres: Bool { cli.database.hasPrefix("postgres") }

    /// Rows of a query run by the `sqlite3` shell on the database (read-only), one line per row, `|` between columns;
    /// by `psql` on PostgreSQL.
    public func query(_ sql: String) throws -> [String] {
        if isPostgres {
            let text = try PostgresCluster.query(cli.database, sql)
            return text.split(separator: "\n").map(String.init)
        }
        return try SQLiteQuery.query(cli.database, sql)
    }

    /// The checks every finished run must pass: each device has exactly one delivery row and it is accepted,
    /// the campaign's counters agree, and every device reached the mock.
    public func expectAllAcceptedOnce(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let log = try await log()
        #expect(log.count == devices, "one delivery row per device", sourceLocation: sourceLocation)
        let notAccepted = log.filter { $0["status"] as? String != "accepted" }
        #expect(
            notAccepted.isEmpty, "\(notAccepted.count) deliveries not accepted, e.g. \(notAccepted.prefix(3))",
            sourceLocation: sourceLocation)
        let tokens = Set(log.compactMap { $0["token"] as? String })
        #expect(
            tokens == Set((1...devices).map { Tokens.hex($0) }), "each device has exactly one row",
            sourceLocation: sourceLocation)
        if let campaign {
            let shown = try await show(campaign)
            #expect(shown["status"] as? String == "completed", sourceLocation: sourceLocation)
            #expect(
                shown["total"] as? Int == devices && shown["accepted"] as? Int == devices
                    && shown["pending"] as? Int == 0,
                "counters: \(shown)", sourceLocation: sourceLocation)
        }
        // The counters agree with the rows (SCHEMA.md, "Useful queries").
        #expect(
            try query(
                """
                SELECT c.id FROM \(isPostgres ? "campaign_view" : "campaigns") c
                WHERE c.total <> (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id)
                   OR c.pending <> (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'pending')
                   OR c.accepted <> (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'accepted')
                   OR c.cancelled <> (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'cancelled')
                """
            ).isEmpty, "campaign counters disagree with the rows", sourceLocation: sourceLocation)
        let stats = server.stats()
        #expect(stats.tokens.count == devices, "every device reached APNs", sourceLocation: sourceLocation)
        #expect(
            stats.tokens.values.allSatisfy { $0.keys.allSatisfy { $0 == "200" } }, "the mock answered only 200",
            sourceLocation: sourceLocation)
    }

    /// Whether `condition` holds within `seconds`, checked every `interval` (sleeping, not blocking a thread).
    public static func eventually(
        _ seconds: Double, every interval: Double = 0.1, _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        }
        return try await condition()
    }

    public static func waitUntil(_ seconds: Double, every interval: Double = 0.1, _ condition: () throws -> Bool)
        rethrows
        -> Bool
    {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return try condition()
    }
}

/// An `apnsd` process in the background, its stdout and stderr (the JSON log lines) each in a file.
public final class BackgroundWorker {
    public let process: ChildProcess
    public let stdout: URL
    public let stderr: URL

    public init(cli: CLI, arguments: [String], environment: [String: String] = [:]) throws {
        let name = UUID().uuidString
        stdout = cli.directory.appendingPathComponent("worker-\(name).out")
        stderr = cli.directory.appendingPathComponent("worker-\(name).err")
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process = try ChildProcess(
            CLI.binaries.appendingPathComponent("apnsd").path, arguments,
            environment: cli.environment.merging(environment) { $1 }, directory: cli.directory.path,
            stdout: .file(stdout.path), stderr: .file(stderr.path))
    }

    public var pid: Int32 { process.processIdentifier }

    /// The log lines written so far (JSON, since stderr is not a terminal), in order.
    public func events() -> [[String: Any]] {
        let text = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    public func events(_ message: String) -> [[String: Any]] { events().filter { $0["msg"] as? String == message } }

    public var log: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }
    public var output: String { (try? String(contentsOf: stdout, encoding: .utf8)) ?? "" }

    /// Waits up to `seconds` for the process to end; false if it still runs.
    public func waitForExit(_ seconds: Double) -> Bool {
        Fleet.waitUntil(seconds, every: 0.02) { !process.isRunning }
    }

    /// SIGTERM, then waits up to `seconds`; the time it took, nil if it did not exit.
    public func terminate(within seconds: Double) -> Double? {
        let asked = Date()
        process.terminate()
        guard waitForExit(seconds) else { return nil }
        return Date().timeIntervalSince(asked)
    }

    /// For `defer`: a test that failed half-way leaves no process behind.
    public func killIfRunning() { process.stop(signal: SIGKILL) }

    /// SIGSTOP, then waits (up to `seconds`) until every thread of the process is stopped; whether they all are. A
    /// thread can still be finishing a system call when `kill` returns (the write of a commit to the WAL, say), and
    /// would change the database after the caller read it.
    @discardableResult
    public func suspend(within seconds: Double = 10) -> Bool {
        kill(pid, SIGSTOP)
        return Fleet.waitUntil(seconds, every: 0.01) { Self.everyThreadStopped(pid) }
    }

    /// Whether every thread of `pid` is stopped (`T` or `t` in its `/proc/PID/task/TID/stat`).
    static func everyThreadStopped(_ pid: Int32) -> Bool {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"),
            !threads.isEmpty
        else { return false }
        return threads.allSatisfy { thread in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
                let name = stat.lastIndex(of: ")"), stat.distance(from: name, to: stat.endIndex) > 2
            else { return false }
            let state = stat[stat.index(name, offsetBy: 2)]
            return state == "T" || state == "t"
        }
    }
}
