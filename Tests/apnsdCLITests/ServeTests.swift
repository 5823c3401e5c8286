import CLITestSupport
import Foundation
import TestSupport
import Testing
import Threads

/// `apnsd serve`: the listening line, the unauthenticated routes, JSON errors, a clean stop.
@Suite(.offThePool) struct ServeTests {
    /// Starts `apnsd serve ARGS --listen 127.0.0.1:0` and waits for its first stdout line; the process and base URL.
    static func start(_ cli: CLI, _ arguments: [String]) throws -> (BackgroundWorker, String) {
        let serve = try BackgroundWorker(cli: cli, arguments: ["serve", "--listen", "127.0.0.1:0"] + arguments)
        #expect(
            Fleet.waitUntil(20, every: 0.02) { serve.output.contains("\n") || !serve.process.isRunning }, "\(serve.log)"
        )
        let first = try #require(
            serve.output.split(separator: "\n").first.map(String.init), "no stdout; log: \(serve.log)")
        let prefix = "listening on http://127.0.0.1:"
        try #require(
            first.hasPrefix(prefix) && Int(first.dropFirst(prefix.count)).map { $0 > 0 } == true, "first line: \(first)"
        )
        return (serve, String(first.dropFirst("listening on ".count)))
    }

    static func json(_ body: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "not a JSON object: \(body)")
    }

    @Test func apiOnlyAnswersItsRoutesAndStopsCleanly() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let secret = try await APIHarness.createKey(cli, "backend", [])
        let (serve, base) = try Self.start(cli, ["--no-worker"])
        defer { serve.killIfRunning() }

        // A key, good or mangled, is never written to the log.
        for authorization in ["Bearer " + secret, "bearer " + secret + "x"] {
            let answer = await HTTPClient.request(
                "GET", base + "/v1/deliveries", headers: ["Authorization: \(authorization)"])
            #expect(answer?.status == (authorization.hasSuffix("x") ? 401 : 200), "\(answer?.body ?? "no answer")")
        }

        let health = try #require(HTTPClient.request("GET", base + "/healthz"))
        #expect(health.status == 200 && health.headers["content-type"] == "application/json")
        #expect(try Self.json(health.body)["status"] as? String == "ok")

        let ready = try #require(HTTPClient.request("GET", base + "/readyz"))
        #expect(ready.status == 200, "\(ready.body)")
        let checks = try Self.json(ready.body)["checks"] as? [String: String]
        #expect(checks == ["database": "ok"], "\(ready.body)")

        let metrics = try #require(HTTPClient.request("GET", base + "/metrics"))
        #expect(
            metrics.status == 200 && metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.body.contains("apnsd_build_info{version="))
        let promtool = try await ToolRun.run("/usr/bin/promtool", ["check", "metrics"], stdin: metrics.body)
        #expect(promtool.status == 0, "\(promtool.stdout)\(promtool.stderr)")

        let missing = try #require(HTTPClient.request("GET", base + "/nope"))
        #expect(missing.status == 404 && missing.headers["content-type"] == "application/json")
        let missingError = try Self.json(missing.body)["error"] as? [String: String]
        #expect(missingError?["code"] == "not_found" && missingError?["message"]?.isEmpty == false, "\(missing.body)")

        let wrong = try #require(HTTPClient.request("POST", base + "/healthz"))
        #expect(wrong.status == 405 && wrong.headers["allow"] == "GET", "\(wrong.headers)")
        #expect((try Self.json(wrong.body)["error"] as? [String: String])?["code"] == "method_not_allowed")

        // SIGTERM while requests come in: those answered are answered whole (ready, or the stopping server's 503 to a
        // request that came in after the stop began), and the process exits 0.
        let answered = Locked([Int]())
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                if let response = HTTPClient.request("GET", base + "/readyz") {
                    answered.withLock { $0.append(response.status) }
                }
            }
        }
        let took = serve.terminate(within: 20)
        group.wait()
        #expect(took != nil, "no exit on SIGTERM; log: \(serve.log)")
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 0, "\(serve.log)")
        #expect(answered.withLock { $0 }.allSatisfy { $0 == 200 || $0 == 503 }, "\(answered.withLock { $0 })")
        #expect(serve.output.split(separator: "\n").count == 1, "only the listening line on stdout: \(serve.output)")
        #expect(!serve.log.contains(secret), "a secret in the server's log")
    }

    @Test func aBadListenAddressIsOneLine() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        for bad in ["8080", "example.com:80", "127.0.0.1:99999", "[::1]8080"] {
            let result = try await cli.run("serve", "--no-worker", "--listen", bad)
            #expect(result.status == 64, "\(bad): \(result.stderr)")
            #expect(
                result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("api.listen"),
                "\(bad): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let env = try await cli.run(["serve", "--no-worker"], environment: ["APNSD_API_LISTEN": "nowhere"])
        #expect(env.status == 64 && env.stderr.contains("APNSD_API_LISTEN"), "\(env.stderr)")
        let half = try await cli.run("serve", "--no-worker", "--listen", "127.0.0.1:0", "--tls-cert", "cert.pem")
        #expect(half.status == 64 && half.stderr.contains("api.tlsKey"), "\(half.stderr)")
        let unreadable = try await cli.run(
            "serve", "--no-worker", "--listen", "127.0.0.1:0", "--tls-cert", "missing.pem", "--tls-key", "missing.key")
        #expect(
            unreadable.status == 1 && unreadable.stderr.split(separator: "\n").count == 1
                && unreadable.stderr.contains("api.tlsCert"),
            "\(unreadable.stderr)")
    }
}

/// `apnsd serve` with its worker delivers a queued single send and stops on SIGTERM.
@Suite(.offThePool) struct ServeWorkerTests {
    @Test func serveDeliversASingleSendAndExitsOnSIGTERM() async throws {
        let fleet = try await Fleet(devices: 1, rate: 100, campaign: false)
        defer { fleet.stop() }
        let sent = try await fleet.cli.run("send", Tokens.hex(1), "--payload", Fleet.payload)
        try #require(sent.status == 0, "\(sent.stderr)")
        let (serve, base) = try ServeTests.start(fleet.cli, [])
        defer { serve.killIfRunning() }
        #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 1 }, "\(serve.log.suffix(2000))")
        let ready = try #require(HTTPClient.request("GET", base + "/readyz"))
        #expect(ready.status == 200, "\(ready.body)")
        #expect(
            try ServeTests.json(ready.body)["checks"] as? [String: String] == ["database": "ok", "worker": "ok"],
            "\(ready.body)")
        #expect(
            await Fleet.eventually(10) { (try? await fleet.log().first?["status"] as? String) == "accepted" },
            "recorded")

        // Another process's send while serve runs: seen through the store's change count, and counted.
        let again = try await fleet.cli.run("send", Tokens.hex(1), "--payload", Fleet.payload)
        try #require(again.status == 0, "\(again.stderr)")
        #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 2 }, "\(serve.log.suffix(2000))")
        let scraped = Locked([String: Double]())
        #expect(
            await Fleet.eventually(10) {
                let values = Self.samples(HTTPClient.request("GET", base + "/metrics")?.body ?? "")
                scraped.withLock { $0 = values }
                return values[#"apnsd_deliveries_total{status="accepted",reason="none"}"#] == 2
            }, "\(scraped.withLock { $0 })")
        let metrics = scraped.withLock { $0 }
        #expect(metrics[#"apnsd_apns_requests_total{environment="production",status="200"}"#] == 2)
        #expect(metrics["apnsd_apns_request_duration_seconds_count"] == 2)
        #expect(metrics["apnsd_provider_tokens_minted_total"] == 1)
        #expect((metrics[#"apnsd_apns_connections{environment="production",state="open"}"#] ?? 0) >= 1)
        #expect(
            metrics[#"apnsd_queue_pending{class="single"}"#] == 0
                && metrics[#"apnsd_queue_pending{class="bulk"}"#] == 0)
        #expect(
            metrics[#"apnsd_queue_oldest_due_age_seconds{class="single"}"#] == 0
                && metrics[#"apnsd_queue_oldest_due_age_seconds{class="bulk"}"#] == 0)
        #expect(metrics[#"apnsd_workers{state="live"}"#] == 1 && metrics[#"apnsd_workers{state="stale"}"#] == 0)
        #expect(metrics["apnsd_webhook_backlog_events"] == nil, "no webhook configured")
        #expect(
            metrics[#"apnsd_devices{state="active"}"#] == 1 && metrics[#"apnsd_devices{state="inactive"}"#] == 0)

        #expect(serve.terminate(within: 20) != nil, "no exit on SIGTERM; log: \(serve.log.suffix(2000))")
        #expect(
            serve.process.terminationReason == .exit && serve.process.terminationStatus == 0,
            "\(serve.log.suffix(2000))")
        #expect(try await fleet.workers().isEmpty, "the worker unregistered")
        #expect(fleet.accepted == 2)
    }

    /// A batch large enough to be stored as one deferred row: every notification reaches the simulator, each
    /// under its own id, and the queue gauge returns to zero.
    @Test func serveDeliversALargeBatchStoredAsOneRow() async throws {
        let fleet = try await Fleet(devices: 0, rate: 0, campaign: false)
        defer { fleet.stop() }
        let key = try await APIHarness.createKey(fleet.cli, "backend", [])
        let (serve, base) = try ServeTests.start(fleet.cli, [])
        defer { serve.killIfRunning() }
        let items = (0..<60).map { APIHarness.notification(Tokens.hex(1000 + $0)) }.joined(separator: ",")
        let posted = try #require(
            HTTPClient.request(
                "POST", base + "/v1/notifications/batch",
                headers: [
                    "Authorization: Bearer \(key)", "Content-Type: application/json",
                ], body: #"{"notifications":[\#(items)]}"#))
        #expect(posted.status == 202, "\(posted.body)")
        let ids = try #require(try ServeTests.json(posted.body)["ids"] as? [String], "\(posted.body)")
        #expect(ids.count == 60 && Set(ids).count == 60)
        #expect(
            await Fleet.eventually(30, every: 0.02) { fleet.accepted >= 60 },
            "\(fleet.accepted) accepted; \(serve.log.suffix(2000))")
        #expect(
            await Fleet.eventually(10) {
                (try? await fleet.log().filter { $0["status"] as? String == "accepted" }.count) == 60
            })
        let tokens = Set(try await fleet.log().compactMap { $0["token"] as? String })
        #expect(tokens == Set((0..<60).map { Tokens.hex(1000 + $0) }))
        let first = try #require(
            HTTPClient.request(
                "GET", base + "/v1/notifications/\(ids[0])", headers: ["Authorization: Bearer \(key)"]))
        #expect(try ServeTests.json(first.body)["status"] as? String == "completed", "\(first.body)")
        let metrics = Self.samples(HTTPClient.request("GET", base + "/metrics")?.body ?? "")
        #expect(metrics[#"apnsd_queue_pending{class="single"}"#] == 0, "\(metrics)")
        #expect(fleet.accepted == 60)
    }

    /// Each sample line of a Prometheus text exposition: series (name and labels) to value.
    static func samples(_ text: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            values[String(line[..<space])] = value
        }
        return values
    }
}
