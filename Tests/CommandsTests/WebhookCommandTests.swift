import CLITestSupport
import Foundation
import HTTPServer
import PostgresStore
import ProviderAuth
import QueueModel
import Store
import TestSupport
import Testing
import Threads

/// The webhook as `apnsd serve`, `apnsd webhook status` and `apnsd webhook retry` run it, on SQLite and PostgreSQL,
/// against a local receiver over a real socket; and what serve warns about at start.
@Suite struct WebhookCommandTests {
    static let engines: [Bool] = PostgresCluster.enabled ? [false, true] : [false]
    static let secret = "a-webhook-secret-from-a-file"
    static let topic = "com.example.app"

    /// A receiver that checks each POST's `t=…,v1=…` itself and answers 400 to a batch holding event 1 until
    /// `accepting`; the ids it accepted, in order.
    final class Receiver: Sendable {
        let accepting = Locked(false)
        let accepted = Locked<[String]>([])
        let refused = Locked(0)
        let badSignatures = Locked(0)
        /// Each POST's `v1=` count and whether it had the legacy header.
        let signatures = Locked<[(v1: Int, legacy: Bool)]>([])
        let server: HTTPServer

        init() throws {
            let (accepting, accepted, refused, bad) = (accepting, accepted, refused, badSignatures)
            let signatures = signatures
            server = try HTTPServer.start(listen: try ListenAddress(parsing: "127.0.0.1:0")) { request in
                let parts = (request.headers["X-Apnsd-Signature"] ?? "").split(separator: ",")
                signatures.withLock {
                    $0.append(
                        (parts.filter { $0.hasPrefix("v1=") }.count, request.headers["X-Apnsd-Signature-Legacy"] != nil)
                    )
                }
                let t = parts.first.flatMap { $0.hasPrefix("t=") ? String($0.dropFirst(2)) : nil } ?? ""
                let v1 = HMACSHA256.hex(
                    key: Array(WebhookCommandTests.secret.utf8), message: Array("\(t).".utf8) + request.body)
                guard parts.dropFirst().contains(Substring("v1=" + v1)) else {
                    bad.withLock { $0 += 1 }
                    return HTTPResponse(status: 401, text: "bad signature\n")
                }
                let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
                let ids = (object?["events"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                if ids.contains("1") && !accepting.withLock({ $0 }) {
                    refused.withLock { $0 += 1 }
                    return HTTPResponse(status: 400, text: "no\n")
                }
                accepted.withLock { $0 += ids }
                return HTTPResponse(status: 200, text: "ok\n")
            }
        }

        var url: String { "http://127.0.0.1:\(server.address.port)/hook?token=in-the-query" }
    }

    /// A database with `events` device.deactivated events written through the command line.
    static func cli(postgres: Bool) async throws -> CLI {
        var cli = try CLI()
        if postgres { cli.environment["APNSD_DATABASE"] = try PostgresCluster.shared.createDatabase() }
        try #require(await cli.run("init").status == 0)
        return cli
    }

    static func writeEvent(_ cli: CLI, _ n: Int) async throws {
        let token = Tokens.hex(n)
        try #require(await cli.run("device", "add", token, "--topic", topic).status == 0)
        let removed = try await cli.run("device", "remove", token, "--topic", topic)
        try #require(removed.status == 0, "\(removed.stderr)")
    }

    /// Runs `body` on `cli`'s database through a store of its own, closed after.
    static func withStore(_ cli: CLI, postgres: Bool, _ body: (any EventStore) async throws -> Void) async throws {
        if postgres {
            let store = try await PostgresStore.open(url: cli.database)
            do { try await body(store) } catch {
                await store.close()
                throw error
            }
            await store.close()
        } else {
            let store = try await Store.open(at: cli.database)
            do { try await body(store) } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    static func status(_ cli: CLI, _ environment: [String: String]) async throws -> [String: Any] {
        let result = try await cli.run(["webhook", "status", "--json"], environment: environment)
        try #require(result.status == 0, "\(result.stderr)")
        return try Fleet.json(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A batch refused for good, failing for two hours already (the stored failure carries its count across a
    /// restart), is parked at serve's next refusal: counted in /metrics, later events delivered; `webhook status`
    /// shows it, `webhook retry` delivers it after them.
    @Test(arguments: engines) func aRefusedBatchIsParkedLaterEventsGoOnAndRetrySendsIt(postgres: Bool) async throws {
        let cli = try await Self.cli(postgres: postgres)
        defer { cli.cleanUp() }
        let receiver = try Receiver()
        for n in 1...3 { try await Self.writeEvent(cli, n) }
        try await Self.withStore(cli, postgres: postgres) { store in
            let since = Date().addingTimeInterval(-7200)
            try await store.recordWebhookFailure(
                WebhookFailure(
                    first: EventID(1), last: EventID(1), events: 1, attempts: 19, firstFailureAt: since,
                    lastError: "HTTP 400", updatedAt: since))
        }
        // Rotating (a second v1 with the previous secret), the legacy header off.
        let webhook = [
            "APNSD_WEBHOOK_URL": receiver.url,
            "APNSD_WEBHOOK_SECRET_FILE": try cli.write("webhook.secret", Self.secret + "\n"),
            "APNSD_WEBHOOK_PREVIOUS_SECRET": "the-previous-webhook-secret", "APNSD_WEBHOOK_LEGACY_SIGNATURE": "false",
        ]
        let before = try await Self.status(cli, webhook)
        #expect(before["backlog"] as? Int == 3 && before["lastError"] as? String == "HTTP 400", "\(before)")
        #expect((before["failing"] as? [String: Any])?["attempts"] as? Int == 19)

        let serve = cli.launch(["serve", "--no-worker", "--listen", "127.0.0.1:0"], environment: webhook)
        defer { serve.stopIfRunning() }
        let base = try await WorkerStatusTests.address(serve)
        #expect(await Fleet.eventually(30) { !serve.events("webhook.parked").isEmpty }, "\(serve.log.suffix(2000))")
        let parkedLine = try #require(serve.events("webhook.parked").first)
        #expect(parkedLine["events"] as? Int == 3 && parkedLine["attempts"] as? Int == 20, "\(parkedLine)")
        #expect(parkedLine["webhook.url"] as? String == "http://127.0.0.1:\(receiver.server.address.port)/hook")
        #expect(!serve.log.contains("in-the-query") && !serve.log.contains(Self.secret))
        #expect(await WorkerStatusTests.samples(base)["apnsd_webhook_parked_events_total"] == 3)

        try await Self.writeEvent(cli, 4)
        #expect(await Fleet.eventually(30) { receiver.accepted.withLock { $0 } == ["4"] }, "\(serve.log.suffix(2000))")
        #expect(await serve.terminate(within: 90) != nil)

        let parked = try await Self.status(cli, webhook)
        #expect(parked["backlog"] as? Int == 0 && parked["lastError"] is NSNull, "\(parked)")
        #expect(parked["parkedEvents"] as? Int == 3 && parked["failing"] is NSNull)
        let batch = try #require((parked["parked"] as? [[String: Any]])?.first, "\(parked)")
        #expect(batch["first"] as? String == "1" && batch["last"] as? String == "3" && batch["events"] as? Int == 3)
        #expect(batch["attempts"] as? Int == 20 && batch["lastError"] as? String == "HTTP 400")
        let text = try await cli.run(["webhook", "status"], environment: webhook)
        #expect(text.stdout.contains("backlog      0 events") && text.stdout.contains("batch 1: events 1–3 (3)"))

        // Refused again: exit 1, still parked. Accepted: delivered after event 4, no longer parked.
        let again = try await cli.run(["webhook", "retry"], environment: webhook)
        #expect(again.status == 1 && again.stdout.contains("refused again (HTTP 400)"), "\(again)")
        receiver.accepting.withLock { $0 = true }
        let retried = try await cli.run(["webhook", "retry"], environment: webhook)
        #expect(retried.status == 0 && retried.stdout.contains("1 delivered"), "\(retried)")
        #expect(receiver.accepted.withLock { $0 } == ["4", "1", "2", "3"])
        #expect((try await Self.status(cli, webhook)["parked"] as? [Any])?.isEmpty == true)
        #expect(receiver.badSignatures.withLock { $0 } == 0)
        let signatures = receiver.signatures.withLock { $0 }
        #expect(signatures.count >= 4 && signatures.allSatisfy { $0.v1 == 2 && !$0.legacy }, "\(signatures)")
        await receiver.server.stop()
    }

    /// `apnsd serve` on a non-loopback address over plain HTTP, and with a secret on its command line, says so once
    /// at start (the secret itself never); on loopback with the secret in a variable, neither.
    @Test func serveWarnsOfPlainHTTPOffLoopbackAndOfASecretOnTheCommandLine() async throws {
        let cli = try await Self.cli(postgres: false)
        defer { cli.cleanUp() }
        let open = cli.launch([
            "serve", "--no-worker", "--listen", "0.0.0.0:0", "--webhook-url", "http://127.0.0.1:1/hook",
            "--webhook-secret", Self.secret,
        ])
        defer { open.stopIfRunning() }
        _ = try await WorkerStatusTests.address(open)
        let plain = open.events("serve.plain_http")
        #expect(plain.count == 1, "\(open.log.prefix(2000))")
        #expect((plain.first?["address"] as? String)?.hasPrefix("0.0.0.0:") == true, "\(plain)")
        #expect((plain.first?["hint"] as? String)?.contains("api.tlsCert") == true)
        let flagged = open.events("config.secret_on_command_line")
        #expect(flagged.count == 1 && flagged.first?["setting"] as? String == "webhook.secret", "\(flagged)")
        #expect(!open.log.contains(Self.secret))
        #expect(await open.terminate(within: 90) != nil)

        let quiet = cli.launch(
            ["serve", "--no-worker", "--listen", "127.0.0.1:0"],
            environment: ["APNSD_WEBHOOK_URL": "http://127.0.0.1:1/hook", "APNSD_WEBHOOK_SECRET": Self.secret])
        defer { quiet.stopIfRunning() }
        _ = try await WorkerStatusTests.address(quiet)
        #expect(await quiet.terminate(within: 90) != nil)
        #expect(quiet.events("serve.plain_http").isEmpty && quiet.events("config.secret_on_command_line").isEmpty)
        #expect(quiet.events("serve.started").count == 1)
    }

    /// Both ways of giving the secret at once: one line, exit 64, nothing done. A secret file that cannot be read:
    /// serve stops at start with one line (exit 1).
    @Test func aSecretAndASecretFileTogetherAreAUsageErrorAndAnUnreadableFileStopsServe() async throws {
        let cli = try await Self.cli(postgres: false)
        defer { cli.cleanUp() }
        let both = try await cli.run(
            ["webhook", "status"],
            environment: [
                "APNSD_WEBHOOK_URL": "http://127.0.0.1:1/hook", "APNSD_WEBHOOK_SECRET": Self.secret,
                "APNSD_WEBHOOK_SECRET_FILE": cli.path("webhook.secret"),
            ])
        #expect(both.status == 64 && both.stdout.isEmpty, "\(both)")
        #expect(
            both.stderr.split(separator: "\n").map(String.init) == [
                "apnsd: error: webhook.secret and webhook.secretFile both give the webhook's secret: set one"
            ], "\(both.stderr)")

        let missing = try await cli.run(
            ["serve", "--no-worker", "--listen", "127.0.0.1:0"],
            environment: [
                "APNSD_WEBHOOK_URL": "http://127.0.0.1:1/hook", "APNSD_WEBHOOK_SECRET_FILE": cli.path("absent.secret"),
            ])
        #expect(missing.status == 1 && missing.stdout.isEmpty, "\(missing)")
        #expect(missing.stderr.contains("cannot read webhook.secretFile \(cli.path("absent.secret"))"))

        // `config check` reads the file as serve does, and names the URL without its query, never the secret.
        for (file, readable) in [(cli.path("absent.secret"), false), (try cli.write("ok.secret", Self.secret), true)] {
            let checked = try await cli.run(
                ["config", "check", "--json"],
                environment: ["APNSD_WEBHOOK_URL": "http://127.0.0.1:1/hook?k=v", "APNSD_WEBHOOK_SECRET_FILE": file])
            let webhook = try #require(
                (try Fleet.json(checked.stdout)["checks"] as? [String: Any])?["webhook"] as? [String: Any],
                "\(checked)")
            #expect(webhook["ok"] as? Bool == readable, "\(webhook)")
            #expect((webhook["detail"] as? String)?.hasPrefix("http://127.0.0.1:1/hook") == true, "\(webhook)")
            #expect(!checked.stdout.contains("k=v") && !checked.stdout.contains(Self.secret))
        }

        let unset = try await cli.run(["webhook", "retry"])
        #expect(unset.status == 64 && unset.stderr.contains("webhook.url is not set"), "\(unset)")
    }
}
