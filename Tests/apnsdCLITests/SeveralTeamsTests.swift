import APNsMock
import CLITestSupport
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// One apnsd for three apps: two teams' keys and a certificate, each topic routed to its own credential — the
/// mock checks kid and iss against the team that owns the topic, and the certificate's bundle id, per request.
/// A key revoked mid-campaign pauses only its own deliveries; a certificate near its expiry is warned about.
@Suite(.offThePool) struct SeveralTeamsTests {
    static let shop = "com.example.shop"
    static let rides = "com.partner.rides"
    static let legacy = "com.example.legacy"
    static let payload = #"{"aps":{"alert":"teams"}}"#

    struct Setup {
        var cli: CLI
        let identity: TLSIdentity
        let teamA: MockTeam
        let teamB: MockTeam
        let clientCA: String
    }

    /// The CLI with its config (no single key: only `apns.credentials`), and what the mock needs.
    static func setup() async throws -> Setup {
        var cli = try CLI()
        let dir = cli.directory.path
        let keyA = CLI.fixture("keys/AuthKey_TESTKEY001.p8")
        let keyB = dir + "/AuthKey_RIDESKEY01.p8"
        let made = try await ToolRun.run(
            "/bin/sh",
            ["-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out \(keyB)"])
        try #require(made.status == 0, "\(made.stderr)")
        let ca = try TestCertificateAuthority(in: dir, name: "clients")
        // Within 30 days of its end: the worker warns.
        let certificate = try ca.issue(bundleID: legacy, environments: [.production, .development], daysValid: 20)
        let passwordFile = try cli.write("legacy.pass", certificate.password + "\n")
        let identity = try TLSIdentity.throwaway()
        let serverCA = try cli.write("ca.pem", identity.caCertificatePEM!)
        cli.environment.merge([
            "APNSD_CONFIG": try cli.write(
                "apnsd.json",
                #"""
                {"apns":{"credentials":[
                  {"name":"shop","keyFile":"\#(keyA)","keyId":"TESTKEY001","teamId":"TESTTEAM01","topics":["\#(shop)"]},
                  {"name":"rides","keyFile":"\#(keyB)","keyId":"RIDESKEY01","teamId":"RIDESTEAM1","topics":["\#(rides)"]},
                  {"name":"legacy","certificate":"\#(certificate.p12)","passwordFile":"\#(passwordFile)","topics":["\#(legacy)"]}
                ]}}
                """#),
            "APNSD_CA_FILE": serverCA, "APNSD_CONNECTIONS": "1", "APNSD_RETRY_BASE": "0.05",
            "APNSD_RETRY_CAP": "0.5",
            "APNSD_WORKER_HEARTBEAT": "0.2", "APNSD_WORKER_LEASE": "1.5",
        ]) { $1 }
        let teamA = MockTeam(
            key: try SigningKey(contentsOfFile: keyA),
            credential: try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01"), topics: [shop])
        let teamB = MockTeam(
            key: try SigningKey(contentsOfFile: keyB),
            credential: try ProviderCredential(keyId: "RIDESKEY01", teamId: "RIDESTEAM1"), topics: [rides])
        return Setup(cli: cli, identity: identity, teamA: teamA, teamB: teamB, clientCA: ca.certificatePEM)
    }

    static func mock(_ setup: Setup, teams: [MockTeam], port: Int = 0) throws -> MockServer {
        try MockServer(
            configuration: MockConfiguration(
                port: port, identity: setup.identity, verifier: JWTVerifier(teams: teams),
                statsTokens: true, environment: .production,
                clientCAPEM: try String(contentsOfFile: setup.clientCA, encoding: .utf8)))
    }

    /// `count` devices of `topic` (tokens from `first`) and a campaign to all of them; its id.
    static func campaign(_ cli: CLI, topic: String, count: Int, first: Int) async throws -> String {
        let tokens = (first..<(first + count)).map { Tokens.hex($0) }.joined(separator: "\n")
        let imported = try await cli.run(["device", "import", "-", "--topic", topic], stdin: tokens)
        try #require(imported.status == 0, "\(imported.stderr)")
        let created = try await cli.run("campaign", "create", "--all", "--topic", topic, "--payload", payload)
        try #require(created.status == 0, "\(created.stderr)")
        return created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func counts(_ cli: CLI, _ id: String) async throws -> [String: Any] {
        let shown = try await cli.run("campaign", "show", id, "--json")
        try #require(shown.status == 0, "\(shown.stderr)")
        return try Fleet.json(shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func eachTopicGoesOutWithItsOwnCredentialAndARevokedKeyPausesOnlyItsDeliveries() async throws {
        var setup = try await Self.setup()
        defer { setup.cli.cleanUp() }
        var server = try Self.mock(setup, teams: [setup.teamA, setup.teamB])
        defer { server.stop() }
        let port = server.port
        setup.cli.environment["APNSD_PRODUCTION_URL"] = "https://127.0.0.1:\(port)"
        setup.cli.environment["APNSD_DEVELOPMENT_URL"] = "https://127.0.0.1:\(port)"
        let cli = setup.cli
        try #require(await cli.run("init").status == 0)
        let checked = try await cli.run("config", "check", "--json")
        let checks = try #require(
            try Fleet.json(checked.stdout)["checks"] as? [String: [String: Any]], "\(checked.stdout)")
        #expect(
            checks["credential.shop"]?["ok"] as? Bool == true && checks["credential.rides"]?["ok"] as? Bool == true,
            "\(checks)")
        #expect((checks["credential.legacy"]?["detail"] as? String)?.contains("renew it soon") == true, "\(checks)")

        // 1. Every topic with its own credential: all accepted, nothing refused.
        var first = [(String, String)]()
        for (index, topic) in [Self.shop, Self.rides, Self.legacy].enumerated() {
            first.append((topic, try await Self.campaign(cli, topic: topic, count: 20, first: 1 + index * 1000)))
        }
        let run = try await cli.run("worker", "--until-idle")
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        for (topic, id) in first {
            #expect(try await Self.counts(cli, id)["accepted"] as? Int == 20, "\(topic)")
        }
        let stats = server.stats()
        #expect(
            stats.totals.statuses["200"] == 60 && stats.totals.statuses.count == 1,
            "\(stats.totals.statuses) \(stats.totals.reasons)")
        #expect(
            run.stderr.contains(#""msg":"apns.certificate_expiring""#)
                && run.stderr.contains(#""credential":"legacy""#)
                && run.stderr.contains(#""days_left":19"#), "\(run.stderr.suffix(2000))")
        #expect(!run.stderr.contains("eyJ"), "a token in the log")

        // 2. A slower second round; the rides key is revoked while it runs (the mock restarts without its team).
        setup.cli.environment["APNSD_RATE"] = "40"
        var second = [(String, String)]()
        for (index, topic) in [Self.shop, Self.rides, Self.legacy].enumerated() {
            second.append(
                (topic, try await Self.campaign(setup.cli, topic: topic, count: 60, first: 100 + index * 1000)))
        }
        let worker = try BackgroundWorker(cli: setup.cli, arguments: ["worker"])
        defer { worker.killIfRunning() }
        #expect(
            await Fleet.eventually(20, every: 0.02) { server.stats().totals.statuses["200", default: 0] >= 75 },
            "\(worker.log.suffix(2000))")
        server.stop()
        server = try Self.mock(setup, teams: [setup.teamA], port: port)
        for (topic, id) in second where topic != Self.rides {
            #expect(
                await Fleet.eventually(30, every: 0.05) {
                    (try? await Self.counts(setup.cli, id))?["status"] as? String == "completed"
                },
                "\(topic): \(worker.log.suffix(2000))")
        }
        #expect(
            await Fleet.eventually(10, every: 0.05) { !worker.events("worker.credential_paused").isEmpty },
            "\(worker.log.suffix(2000))")
        let paused = worker.events("worker.credential_paused")
        #expect(
            paused.count == 1 && paused[0]["credential"] as? String == "rides"
                && paused[0]["reason"] as? String == "403 InvalidProviderToken",
            "\(paused)")
        let rides = try await Self.counts(setup.cli, second[1].1)
        #expect(rides["status"] as? String == "running" && (rides["pending"] as? Int ?? 0) > 0, "\(rides)")
        let log = try await setup.cli.run("log", "--json", "--campaign", second[1].1)
        let rows = try log.lines.map(Fleet.json)
        #expect(
            rows.filter { $0["status"] as? String == "pending" }.allSatisfy { $0["attempts"] as? Int == 0 },
            "\(rows.prefix(3))")
        #expect(
            worker.terminate(within: 20) != nil && worker.process.terminationStatus == 0,
            "\(worker.log.suffix(2000))")
    }

    @Test func statusAndMetricsSayWhichCredentialIsPausedAndWhenCertificatesExpire() async throws {
        var setup = try await Self.setup()
        defer { setup.cli.cleanUp() }
        // The mock does not know the rides team: its tokens are refused.
        let server = try Self.mock(setup, teams: [setup.teamA])
        defer { server.stop() }
        setup.cli.environment["APNSD_PRODUCTION_URL"] = "https://127.0.0.1:\(server.port)"
        setup.cli.environment["APNSD_DEVELOPMENT_URL"] = "https://127.0.0.1:\(server.port)"
        let cli = setup.cli
        try #require(await cli.run("init").status == 0)
        let shop = try await Self.campaign(cli, topic: Self.shop, count: 10, first: 1)
        _ = try await Self.campaign(cli, topic: Self.rides, count: 10, first: 1000)
        let key = try await APIHarness.createKey(cli, "reader", ["read"])
        let (serve, base) = try ServeTests.start(cli, [])
        defer { serve.killIfRunning() }
        #expect(
            await Fleet.eventually(20, every: 0.05) {
                (try? await Self.counts(cli, shop))?["status"] as? String == "completed"
            },
            "\(serve.log.suffix(2000))")
        let status = { HTTPClient.request("GET", base + "/v1/status", headers: ["Authorization: Bearer \(key)"]) }
        // The workers' views are stored with their heartbeats (worker.heartbeat: every 5 s here).
        #expect(
            await Fleet.eventually(30, every: 0.1) {
                (status()?.body ?? "").contains(#""name":"rides","status":"paused""#)
            }, "\(serve.log.suffix(2000))")
        let ready = try #require(HTTPClient.request("GET", base + "/readyz"))
        #expect(ready.status == 200, "a paused credential leaves apnsd ready: \(ready.body)")
        let answer = try #require(status())
        let json = try ServeTests.json(answer.body)
        let credentials = try #require(
            (json["credentials"] as? [[String: Any]]).map { list in
                Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0) })
            }, "\(answer.body)")
        #expect(credentials["shop"]?["status"] as? String == "ok")
        #expect(
            credentials["rides"]?["status"] as? String == "paused"
                && credentials["rides"]?["reason"] as? String == "403 InvalidProviderToken"
                && credentials["rides"]?["since"] != nil, "\(credentials)")
        #expect(
            credentials["legacy"]?["status"] as? String == "ok"
                && credentials["legacy"]?["certificateDaysLeft"] as? Int == 19, "\(credentials)")
        let metrics = ServeWorkerTests.samples(HTTPClient.request("GET", base + "/metrics")?.body ?? "")
        #expect(
            metrics[#"apnsd_credential_paused{credential="rides"}"#] == 1
                && metrics[#"apnsd_credential_paused{credential="shop"}"#] == 0,
            "\(metrics.filter { $0.key.hasPrefix("apnsd_credential") })")
        #expect(metrics[#"apnsd_certificate_days_left{credential="legacy"}"#] == 19)
        #expect(serve.terminate(within: 20) != nil, "\(serve.log.suffix(2000))")
    }
}
