import APNsMock
import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd serve`'s `/metrics`, `apnsd stats --json` and apns-mock's own statistics agree exactly after a campaign
/// answered 200, 410, 400, 429 and 503 (retried, and once given up): requests by status, deliveries by final status
/// and reason, accepted.
@Suite struct MetricsAgreementTests {
    static let scenario = Scenario(tokenPrefixes: [
        "dead": TokenBehaviour(respond: .unregistered), "bad0": TokenBehaviour(respond: .badDeviceToken),
        "c0de": TokenBehaviour(failTimes: 2, failStatus: 429), "fa11": TokenBehaviour(failTimes: 1, failStatus: 503),
        "0ff0": TokenBehaviour(failTimes: 100, failStatus: 503),
    ])
    /// Devices per prefix: a11c is answered 200 at once.
    static let devices = ["a11c": 20, "dead": 4, "bad0": 3, "c0de": 3, "fa11": 2, "0ff0": 2]

    @Test func metricsStatsAndTheMockAgree() async throws {
        let fleet = try await Fleet(devices: 0, rate: 0, campaign: false, scenario: Self.scenario)
        defer { fleet.stop() }
        let tokens = Self.devices.flatMap { prefix, count in (1...count).map { Tokens.hex($0, prefix: prefix) } }
        try #require(
            await fleet.cli.run(["device", "import", "-"], stdin: tokens.joined(separator: "\n")).status == 0)
        try #require(await fleet.cli.run("campaign", "create", "--all", "--payload", Fleet.payload).status == 0)
        // Three attempts: the 0ff0 devices fail with ServiceUnavailable after their third 503.
        let serve = fleet.cli.launch(
            ["serve", "--listen", "127.0.0.1:0"], environment: ["APNSD_RETRY_MAX_ATTEMPTS": "3"])
        defer { serve.stopIfRunning() }
        #expect(await Fleet.eventually(30, every: 0.02) { serve.output.contains("\n") || !serve.isRunning })
        let base = try #require(
            serve.output.split(separator: "\n").first.map { String($0.dropFirst("listening on ".count)) },
            "\(serve.log.suffix(2000))")

        let final = Self.devices.values.reduce(0, +)
        var metrics: [String: Double] = [:]
        let settled = await Fleet.eventually(90, every: 0.2) {
            metrics = Self.samples(await HTTPClient.request("GET", base + "/metrics", headers: [])?.body ?? "")
            return Self.sum(metrics, "apnsd_deliveries_total") == Double(final)
                && metrics[#"apnsd_queue_pending{class="bulk"}"#] == 0
        }
        #expect(settled, "\(metrics)\n\(serve.log.suffix(2000))")
        let mock = fleet.server.stats().totals
        let stats = try Fleet.json(try #require(await fleet.cli.run("stats", "--json").lines.first))

        // Requests: 20 + 3 + 2 accepted, 4 × 410, 3 × 400, 3 × 2 × 429, 2 × 1 + 2 × 3 × 503.
        let expected = ["200": 25, "410": 4, "400": 3, "429": 6, "503": 8]
        #expect(mock.statuses == expected && mock.requests == 46, "\(mock)")
        for (status, count) in expected {
            #expect(
                metrics[#"apnsd_apns_requests_total{environment="production",status="\#(status)"}"#] == Double(count),
                "\(status)")
        }
        #expect(Self.sum(metrics, "apnsd_apns_requests_total") == Double(mock.requests), "no error or other status")
        #expect(stats["requests"] as? Int == mock.requests, "\(stats)")
        #expect(stats["accepted"] as? Int == mock.statuses["200"], "\(stats)")

        // Final outcomes, by status and reason, in the metrics and in stats; retries only in stats.
        let outcomes = try #require(stats["outcomes"] as? [String: [String: Int]], "\(stats)")
        let finals: [String: [String: Int]] = [
            "accepted": ["none": 25], "unregistered": ["Unregistered": 4], "rejected": ["BadDeviceToken": 3],
            "failed": ["ServiceUnavailable": 2],
        ]
        #expect(outcomes.filter { $0.key != "retry" } == finals, "\(outcomes)")
        #expect(outcomes["retry"] == ["TooManyRequests": 6, "ServiceUnavailable": 6], "\(outcomes)")
        for (status, reasons) in finals {
            for (reason, count) in reasons {
                #expect(
                    metrics[#"apnsd_deliveries_total{status="\#(status)",reason="\#(reason)"}"#] == Double(count),
                    "\(status) \(reason)")
            }
        }
        #expect(Self.sum(metrics, "apnsd_deliveries_total") == Double(final))
        // Each written request waited in the queue once; nothing is due any more; this serve's worker is live.
        #expect(metrics[#"apnsd_queue_wait_seconds_count{class="bulk"}"#] == Double(mock.requests))
        #expect(metrics[#"apnsd_queue_oldest_due_age_seconds{class="bulk"}"#] == 0)
        // Live is a heartbeat younger than the lease (1.5 s here): a loaded machine can delay one past it for a
        // moment, so the gauge is read until it says so.
        var workers: [String: Double] = [:]
        let live = await Fleet.eventually(30, every: 0.2) {
            workers = Self.samples(await HTTPClient.request("GET", base + "/metrics", headers: [])?.body ?? "")
            return workers[#"apnsd_workers{state="live"}"#] == 1 && workers[#"apnsd_workers{state="stale"}"#] == 0
        }
        #expect(live, "\(workers.filter { $0.key.hasPrefix("apnsd_workers") })")
        // Every family the shipped alerting rules read is declared in this real exposition.
        let text = await HTTPClient.request("GET", base + "/metrics", headers: [])?.body ?? ""
        let rules = try String(
            contentsOf: PrometheusRules.repository.appendingPathComponent(PrometheusRules.path), encoding: .utf8)
        let used = PrometheusRules.metricNames(in: rules)
        #expect(used.count >= 5, "\(used)")
        for name in used.sorted() {
            let family = ["_bucket", "_count", "_sum"].reduce(name) { name, suffix in
                name.hasSuffix(suffix) && text.contains("# TYPE \(name.dropLast(suffix.count)) histogram")
                    ? String(name.dropLast(suffix.count)) : name
            }
            #expect(
                text.contains("# TYPE \(family) "), "\(name) is used in \(PrometheusRules.path) but not in /metrics")
        }
        #expect(await serve.terminate(within: 30) != nil, "\(serve.log.suffix(2000))")
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

    /// The sum of a family's series (without `_bucket`, `_sum` or `_count` lines of another family).
    static func sum(_ samples: [String: Double], _ family: String) -> Double {
        samples.filter { $0.key == family || $0.key.hasPrefix(family + "{") }.values.reduce(0, +)
    }
}
