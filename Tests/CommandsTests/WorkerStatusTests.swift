import CLITestSupport
import Foundation
import TestSupport
import Testing
import Threads

/// A standalone `apnsd worker --worker-listen` is observed as serve's worker is (`/metrics`, `/readyz`), and what it
/// sees reaches `apnsd status` and the campaigns through its heartbeat, on both engines.
@Suite struct WorkerStatusTests {
    static let engines: [Bool] = PostgresCluster.enabled ? [false, true] : [false]

    /// Where the worker listens, from its `listening on http://HOST:PORT` line (reached on loopback).
    static func address(_ worker: RunningCommand) async throws -> String {
        #expect(
            await Fleet.eventually(30, every: 0.02) { worker.output.contains("\n") || !worker.isRunning },
            "\(worker.log.suffix(2000))")
        let first = try #require(worker.output.split(separator: "\n").first.map(String.init), "\(worker.log)")
        let port = try #require(first.split(separator: ":").last.flatMap { Int($0) }, "first line: \(first)")
        try #require(first.hasPrefix("listening on http://") && port > 0, "first line: \(first)")
        return "http://127.0.0.1:\(port)"
    }

    /// A scrape's samples by series.
    static func samples(_ base: String) async -> [String: Double] {
        let body = await HTTPClient.request("GET", base + "/metrics", headers: [])?.body ?? ""
        var values: [String: Double] = [:]
        for line in body.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            values[String(line[..<space])] = value
        }
        return values
    }

    static func status(_ fleet: Fleet) async throws -> [String: Any] {
        let result = try await fleet.cli.run("status", "--json")
        try #require(result.status == 0, "\(result.stderr)")
        return try Fleet.json(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(arguments: engines) func aStandaloneWorkerServesItsMetricsAndStoresWhatItSees(postgres: Bool) async throws {
        let fleet = try await Fleet(
            devices: 5, rate: 0, database: postgres ? try PostgresCluster.shared.createDatabase() : nil)
        defer { fleet.stop() }
        let worker = fleet.runWorker(["--worker-listen", "127.0.0.1:0"])
        defer { worker.stopIfRunning() }
        let base = try await Self.address(worker)
        #expect(await Fleet.eventually(60, every: 0.05) { fleet.accepted >= 5 }, "\(worker.log.suffix(2000))")
        let started = worker.events("worker.started").first?["listen"] as? String
        #expect(started.map { base.hasSuffix(String($0.split(separator: ":").last ?? "")) } == true, "\(started ?? "")")
        let scraped = Locked([String: Double]())
        #expect(
            await Fleet.eventually(30, every: 0.05) {
                let values = await Self.samples(base)
                scraped.withLock { $0 = values }
                // The counters move when APNs answers, the queue gauge when the answers are recorded: wait for both.
                return values[#"apnsd_deliveries_total{status="accepted",reason="none"}"#] == 5
                    && values[#"apnsd_queue_pending{class="bulk"}"#] == 0
            }, "\(scraped.withLock { $0 })")
        let metrics = scraped.withLock { $0 }
        #expect(metrics[#"apnsd_apns_requests_total{environment="production",status="200"}"#] == 5, "\(metrics)")
        #expect(metrics[#"apnsd_apns_reachable{environment="production"}"#] == 1, "\(metrics)")
        #expect(metrics[#"apnsd_apns_unreachable_seconds{environment="production"}"#] == 0, "\(metrics)")
        #expect(metrics[#"apnsd_apns_reachable{environment="development"}"#] == nil, "never used: absent")
        #expect(metrics[#"apnsd_queue_pending{class="bulk"}"#] == 0, "\(metrics)")

        let ready = try #require(await HTTPClient.request("GET", base + "/readyz", headers: []))
        #expect(ready.status == 200, "\(ready.body)")
        #expect(try Fleet.json(ready.body)["checks"] as? [String: String] == ["database": "ok", "worker": "ok"])
        #expect(await HTTPClient.request("GET", base + "/healthz", headers: [])?.status == 200)
        #expect(await HTTPClient.request("GET", base + "/v1/status", headers: [])?.status == 404)

        // Its view arrives with a heartbeat (every 0.2 s in a Fleet).
        let seen = Locked([String: Any]())
        #expect(
            await Fleet.eventually(30, every: 0.1) {
                guard let status = try? await Self.status(fleet) else { return false }
                seen.withLock { $0 = status }
                let production = (status["apns"] as? [String: Any])?["production"] as? [String: Any]
                let open = (production?["connections"] as? [String: Int])?["open"] ?? 0
                return production?["reachable"] as? Bool == true && open >= 1
            }, "\(seen.withLock { $0 })")
        let status = seen.withLock { $0 }
        let workers = try #require(status["workers"] as? [[String: Any]], "\(status)")
        #expect(
            workers.count == 1 && workers[0]["state"] as? String == "sending"
                && workers[0]["pid"] as? Int == Int(getpid()), "\(workers)")
        #expect(
            (status["credentials"] as? [[String: Any]])?.map { $0["name"] as? String } == ["default"]
                && (status["credentials"] as? [[String: Any]])?.first?["status"] as? String == "ok", "\(status)")
        #expect(
            (status["queue"] as? [String: Any])?["pending"] as? [String: Int] == ["single": 0, "bulk": 0], "\(status)")
        let text = try await fleet.cli.run("status")
        #expect(
            text.status == 0 && text.stdout.contains("database     ok")
                && text.stdout.contains("queue        single 0 pending"), "\(text.stdout)")
        #expect(await worker.terminate(within: 30) != nil, "\(worker.log.suffix(2000))")
    }

    @Test func aCampaignWaitingForAnUnreachableAPNsSaysSo() async throws {
        let fleet = try await Fleet(devices: 3, rate: 0)
        defer { fleet.stop() }
        let id = String(try #require(fleet.campaign))
        // A port nothing listens on: every connection attempt is refused.
        let refusing = ["APNSD_PRODUCTION_URL": "https://127.0.0.1:1", "APNSD_DEVELOPMENT_URL": "https://127.0.0.1:1"]
        let worker = fleet.runWorker(["--worker-listen", "0.0.0.0:0"], environment: refusing)
        defer { worker.stopIfRunning() }
        let base = try await Self.address(worker)
        #expect(worker.log.contains("worker.listen 0.0.0.0:"), "not loopback: a warning; \(worker.log.prefix(500))")
        let shown = Locked([String: Any]())
        #expect(
            await Fleet.eventually(60, every: 0.1) {
                guard let campaign = try? await fleet.show(Int(id)!) else { return false }
                shown.withLock { $0 = campaign }
                return (campaign["waiting"] as? [String: Any])?["reason"] as? String == "apns_unreachable"
            }, "\(shown.withLock { $0 }); \(worker.log.suffix(2000))")
        #expect((shown.withLock { $0 }["waiting"] as? [String: Any])?["since"] is String)

        let watch = fleet.cli.launch(["campaign", "watch", id, "--json", "--interval", "0.05"])
        defer { watch.stopIfRunning() }
        // A line per interval; on a loaded machine a heartbeat may come late (the view then counts for nothing).
        let waitingLine = { () -> [String: Any]? in
            watch.output.split(separator: "\n").compactMap { try? Fleet.json(String($0)) }.first {
                ($0["waiting"] as? [String: Any])?["reason"] as? String == "apns_unreachable"
            }
        }
        #expect(await Fleet.eventually(30, every: 0.05) { waitingLine() != nil }, "\(watch.output.suffix(1000))")
        #expect(waitingLine()?["etaSeconds"] is NSNull, "no ETA while it waits: \(waitingLine() ?? [:])")

        let metrics = await Self.samples(base)
        #expect(metrics[#"apnsd_apns_reachable{environment="production"}"#] == 0, "\(metrics)")
        #expect((metrics[#"apnsd_apns_unreachable_seconds{environment="production"}"#] ?? 0) > 0, "\(metrics)")
        let seen = Locked([String: Any]())
        #expect(
            await Fleet.eventually(30, every: 0.1) {
                guard let status = try? await Self.status(fleet) else { return false }
                seen.withLock { $0 = status }
                let production = (status["apns"] as? [String: Any])?["production"] as? [String: Any]
                return production?["reachable"] as? Bool == false && production?["since"] is String
                    && (status["workers"] as? [[String: Any]])?.first?["state"] as? String == "waiting"
            }, "\(seen.withLock { $0 })")
        // Cancelled, the campaign ends its watch (exit 1: cancelled).
        #expect(try await fleet.cli.run("campaign", "cancel", id).status == 0)
        #expect(await watch.waitForExit(30) && watch.exitStatus == 1, "\(watch.log)")
        #expect(await worker.terminate(within: 30) != nil, "\(worker.log.suffix(2000))")
    }
}
