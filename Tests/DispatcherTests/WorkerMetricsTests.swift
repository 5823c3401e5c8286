import APNs
import APNsMock
import Dispatcher
import Foundation
import HTTP2Transport
import Metrics
import ProviderAuth
import QueueModel
import Testing
import Threads

/// Feeds `APNsdMetrics` from a worker's observer as `apnsd serve` does (MetricsFeed).
final class MetricsObserver: WorkerObserver {
    let metrics = APNsdMetrics(version: "test")

    func apnsAnswered(_ environment: Environment, status: Int?, seconds: Double) {
        metrics.apnsRequest(environment, status: status, seconds: seconds)
    }

    func recorded(final results: [DeliveryResult]) {
        for result in results { metrics.delivered(result.disposition.status, reason: result.reason) }
    }

    func connectFailed(_ environment: Environment, reason: ConnectFailureReason, count: Int) {
        metrics.connectFailed(environment, reason: reason, count: count)
    }

    func queueWaited(_ kind: CampaignKind, seconds: Double) {
        metrics.queueWait.observe(seconds, kind.rawValue)
    }

    /// The value of the sample line `series` (name with its labels, as rendered), nil when absent.
    func value(_ series: String) -> Double? {
        metrics.render().split(separator: "\n").lazy.compactMap { line -> Double? in
            guard line.hasPrefix(series + " ") else { return nil }
            return Double(line.dropFirst(series.count + 1))
        }.first
    }
}

/// The worker's metrics after a real dispatch through apns-mock agree with what was sent and recorded.
@Suite
struct WorkerMetricsTests {
    @Test func countsMatchTheOutcomesAndTheRequests() async throws {
        let scenario = Scenario(tokenPrefixes: [
            "dead": TokenBehaviour(respond: .unregistered),
            "bad0": TokenBehaviour(respond: .badDeviceToken),
            "c0de": TokenBehaviour(failTimes: 2, failStatus: 429),
            "fa11": TokenBehaviour(failTimes: 1, failStatus: 503),
        ])
        let harness = try await DispatchHarness(scenario: scenario)
        try await harness.register(100, prefix: "a11c")
        try await harness.register(7, prefix: "dead")
        try await harness.register(5, prefix: "bad0")
        try await harness.register(4, prefix: "c0de")
        try await harness.register(3, prefix: "fa11")
        _ = try await harness.campaign()
        let observer = MetricsObserver()
        let tokens = ProviderTokenCache(
            key: harness.key, credential: harness.credential,
            minted: { observer.metrics.providerTokensMinted.increment() })

        let worker = harness.worker(tokens: tokens, observer: observer)
        _ = try await worker.run(untilIdle: true)

        #expect(observer.value(#"apnsd_deliveries_total{status="accepted",reason="none"}"#) == 107)
        #expect(observer.value(#"apnsd_deliveries_total{status="unregistered",reason="Unregistered"}"#) == 7)
        #expect(observer.value(#"apnsd_deliveries_total{status="rejected",reason="BadDeviceToken"}"#) == 5)
        #expect(!observer.metrics.render().contains(#"status="pending""#), "retries are not final outcomes")
        #expect(observer.value(#"apnsd_apns_requests_total{environment="production",status="200"}"#) == 107)
        #expect(observer.value(#"apnsd_apns_requests_total{environment="production",status="410"}"#) == 7)
        #expect(observer.value(#"apnsd_apns_requests_total{environment="production",status="400"}"#) == 5)
        #expect(observer.value(#"apnsd_apns_requests_total{environment="production",status="429"}"#) == 8)
        #expect(observer.value(#"apnsd_apns_requests_total{environment="production",status="503"}"#) == 3)
        let requests = harness.server.stats().totals.requests
        #expect(requests == 119 + 8 + 3)
        #expect(observer.value("apnsd_apns_request_duration_seconds_count") == Double(requests))
        #expect(observer.value(#"apnsd_queue_wait_seconds_count{class="bulk"}"#) == Double(requests), "each written")
        #expect(observer.value("apnsd_provider_tokens_minted_total") == 1)
        #expect(worker.unreachableSince.isEmpty && worker.environmentsUsed == [.production])
        await harness.shutdown()
    }

    @Test func requestsThatCannotConnectAreConnectFailuresNotRequests() async throws {
        let harness = try await DispatchHarness(startingServer: false)
        try await harness.register(2)
        _ = try await harness.campaign()
        let observer = MetricsObserver()
        let stop = Locked(false)
        let worker = harness.worker(observer: observer)
        let run = Task { try await worker.run(untilIdle: false, shouldStop: { stop.withLock { $0 } }) }
        let failed = try await WorkerWakeTests.eventually(60) {
            (observer.value(#"apnsd_apns_connect_failures_total{environment="production",reason="connect"}"#) ?? 0)
                >= 1
        }
        #expect(failed)
        #expect(observer.value(#"apnsd_apns_requests_total{environment="production",status="error"}"#) == nil)
        #expect(observer.value("apnsd_apns_request_duration_seconds_count") == 0)
        #expect(try await WorkerWakeTests.eventually(30) { worker.unreachableSince[.production] != nil })
        stop.withLock { $0 = true }
        _ = try? await run.value
        await harness.shutdown()
    }
}
