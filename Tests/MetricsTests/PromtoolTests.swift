import APNs
import Foundation
import Metrics
import QueueModel
import TestSupport
import Testing

/// The full apnsd registry, with values, passes `promtool check metrics`, and the alerting rules of deploy/prometheus
/// pass `promtool check rules` and their unit tests (Debian's prometheus package; scripts/setup installs it).
@Suite(.offThePool) struct PromtoolTests {
    static let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test func promtoolAcceptsTheApnsdRegistry() throws {
        let metrics = APNsdMetrics(version: "1.0.0-test")
        let gauges = QueueGauges(
            pendingSingle: 3, pendingBulk: 1_000_000, oldestDueAgeSingle: 90, oldestDueAgeBulk: 12.25,
            activeDevices: 10, inactiveDevices: 2, webhookBacklog: 7)
        metrics.update(gauges)
        #expect(!metrics.render().contains("\napnsd_webhook_backlog_events "), "absent without a webhook")
        metrics.update(gauges, webhook: true)
        metrics.update(workers: 2, stale: 1)
        metrics.queueWait.observe(0.3, "single")
        metrics.queueWait.observe(400, "bulk")
        metrics.notificationsEnqueued.increment("batch", by: 25)
        metrics.notificationsEnqueued.increment("somewhere else")
        metrics.delivered(.accepted, reason: nil)
        metrics.delivered(.unregistered, reason: .unregistered)
        metrics.delivered(.failed, reason: .transport("timeout"))
        metrics.apnsRequest(.production, status: 200, seconds: 0.012)
        metrics.apnsRequest(.development, status: nil, seconds: 10.5)
        metrics.apnsConnections.set("production", "open", to: 4)
        metrics.connectFailed(.production, reason: .tls, count: 2)
        metrics.providerTokensMinted.increment()
        metrics.httpRequest(route: "/v1/campaigns/{id}", code: 200, seconds: 0.002)
        metrics.httpRequest(route: "/metrics", code: 200, seconds: 0.0001)
        let text = metrics.render()
        for name in [
            "apnsd_build_info", "apnsd_notifications_enqueued_total", "apnsd_deliveries_total",
            "apnsd_apns_requests_total",
            "apnsd_apns_request_duration_seconds", "apnsd_queue_pending", "apnsd_queue_oldest_due_age_seconds",
            "apnsd_apns_connections", "apnsd_apns_connect_failures_total", "apnsd_provider_tokens_minted_total",
            "apnsd_devices",
            "apnsd_http_requests_total",
            "apnsd_http_request_duration_seconds", "apnsd_queue_wait_seconds", "apnsd_workers",
            "apnsd_webhook_backlog_events", "apnsd_webhook_parked_events_total",
        ] {
            #expect(text.contains("# TYPE \(name) "), "\(name) is declared")
        }
        #expect(text.contains(#"apnsd_deliveries_total{status="failed",reason="other"} 1"#))
        #expect(text.contains(#"apnsd_notifications_enqueued_total{source="other"} 1"#))
        #expect(text.contains(#"apnsd_queue_oldest_due_age_seconds{class="single"} 90"#))
        #expect(text.contains(#"apnsd_queue_oldest_due_age_seconds{class="bulk"} 12.25"#))
        #expect(text.contains("\napnsd_webhook_backlog_events 7\n"))
        #expect(text.contains(#"apnsd_workers{state="stale"} 1"#))
        #expect(text.contains(#"apnsd_queue_wait_seconds_count{class="bulk"} 1"#))

        guard let promtool = Self.promtool else {
            Issue.record(
                "promtool not found (/usr/bin/promtool): run scripts/setup, which installs Debian's prometheus package")
            return
        }
        let process = try ChildProcess(
            promtool, ["check", "metrics"], stdin: .pipe, stdout: .pipe, stderr: .standardOutput)
        let said = String(decoding: process.readToEnd(feeding: Data(text.utf8)).stdout, as: UTF8.self)
        process.wait()
        #expect(process.terminationStatus == 0, "promtool check metrics rejects the text:\n\(said)\n\(text)")
        #expect(said.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "promtool has lint complaints:\n\(said)")
    }

    @Test func theAlertingRulesPassPromtoolAndTheirUnitTests() throws {
        guard let promtool = Self.promtool else {
            Issue.record(
                "promtool not found (/usr/bin/promtool): run scripts/setup, which installs Debian's prometheus package")
            return
        }
        let folder = PrometheusRules.repository
        let checked = try ToolRun.run(
            promtool, ["check", "rules", folder.appendingPathComponent(PrometheusRules.path).path])
        #expect(checked.status == 0, "promtool check rules:\n\(checked.stdout)\(checked.stderr)")
        let tested = try ToolRun.run(
            promtool, ["test", "rules", folder.appendingPathComponent(PrometheusRules.testPath).path])
        #expect(tested.status == 0, "promtool test rules:\n\(tested.stdout)\(tested.stderr)")
    }

    @Test func everyAlertIsTestedFiringAndQuiet() throws {
        let rules = try String(
            contentsOf: PrometheusRules.repository.appendingPathComponent(PrometheusRules.path), encoding: .utf8)
        let tests = try String(
            contentsOf: PrometheusRules.repository.appendingPathComponent(PrometheusRules.testPath), encoding: .utf8)
        let alerts = PrometheusRules.alerts(in: rules)
        #expect(alerts.count == 9 && Set(alerts).count == alerts.count, "\(alerts)")
        let cases = PrometheusRules.testedCases(in: tests)
        for alert in alerts {
            #expect(cases[alert]?.fires == true, "no unit test sees \(alert) fire")
            #expect(cases[alert]?.quiet == true, "no unit test sees \(alert) stay quiet")
        }
        #expect(Set(cases.keys).subtracting(alerts).isEmpty, "tests of alerts the rules do not have")
    }

    @Test func theMetricNamesTheRulesUseAreRead() throws {
        let rules = try String(
            contentsOf: PrometheusRules.repository.appendingPathComponent(PrometheusRules.path), encoding: .utf8)
        #expect(
            PrometheusRules.metricNames(in: rules) == [
                "apnsd_apns_unreachable_seconds", "apnsd_queue_oldest_due_age_seconds", "apnsd_deliveries_total",
                "apnsd_workers", "apnsd_credential_paused", "apnsd_webhook_backlog_events",
                "apnsd_webhook_parked_events_total",
            ])
        // Functions, keywords, grouping labels, label values, ranges, offsets and numbers are not metric names; a
        // recording rule's output is.
        let sample = """
            groups:
              - name: sample
                rules:
                  - record: job:apnsd_requests:rate5m
                    expr: sum by (job, status) (rate(apnsd_apns_requests_total{status=~"5..|error",job!="apnsd_x"}[5m] offset 1h))
                  - alert: A
                    expr: 'max without (instance) (apnsd_queue_pending) > 3 and on () absent(apnsd_build_info) or vector(1)'
                  - alert: B
                    expr: |
                      histogram_quantile(0.99, sum by (le) (rate(apnsd_http_request_duration_seconds_bucket[5m])))
                        > bool 1e3 unless ignoring (le) job:apnsd_requests:rate5m
                    for: 5m
            """
        #expect(
            PrometheusRules.metricNames(in: sample) == [
                "apnsd_apns_requests_total", "apnsd_queue_pending", "apnsd_build_info",
                "apnsd_http_request_duration_seconds_bucket", "job:apnsd_requests:rate5m",
            ])
    }
}
