import APNs
import Dispatcher
import Foundation
import HTTP2Transport
import Metrics
import QueueModel

/// Feeds apnsd's metrics in `apnsd serve`: the worker's answers and outcomes (as its `WorkerObserver`), the
/// transport's open connections (sampled at scrape time), the provider tokens minted, and the store's gauges
/// (read through the store actor just before each scrape renders).
final class MetricsFeed: WorkerObserver {
    let metrics: APNsdMetrics
    private let store: any GaugeStore
    private let clock: @Sendable () -> Date

    init(metrics: APNsdMetrics, store: any GaugeStore, clock: @escaping @Sendable () -> Date = Date.init) {
        self.metrics = metrics
        self.store = store
        self.clock = clock
    }

    func apnsAnswered(_ environment: Environment, status: Int?, seconds: Double) {
        metrics.apnsRequest(environment, status: status, seconds: seconds)
    }

    func recorded(final results: [DeliveryResult]) {
        for result in results { metrics.delivered(result.disposition.status, reason: result.reason) }
    }

    /// A provider token was signed.
    func tokenMinted() {
        metrics.providerTokensMinted.increment()
    }

    /// Samples `apnsd_connections_open` from `transport`'s connections (a lock per connection, no I/O).
    func watch(_ transport: TransportRegistry) {
        metrics.connectionsOpen.sample { [weak transport] in
            var open: [Environment: Int] = [.production: 0, .development: 0]
            for (key, connections) in transport?.stats ?? [:] {
                open[key.environment, default: 0] += connections.filter(\.isOpen).count
            }
            return open.map { (labels: [$0.key.rawValue], value: Double($0.value)) }
        }
    }

    /// Samples `apnsd_credential_paused` and `apnsd_certificate_days_left` from the worker's credentials.
    func watch(credentials: @escaping @Sendable () -> [CredentialStatus]) {
        let clock = self.clock
        metrics.credentialPaused.sample {
            credentials().map { (labels: [$0.name], value: $0.paused == nil ? 0 : 1) }
        }
        metrics.certificateDaysLeft.sample {
            credentials().compactMap { status in
                status.certificateDaysLeft(now: clock()).map { (labels: [status.name], value: Double($0)) }
            }
        }
    }

    /// Reads the store's gauges into the metrics; a store that fails (closed, locked) leaves the last values.
    func refreshGauges() async {
        guard let gauges = try? await store.gauges(now: clock()) else { return }
        metrics.update(gauges)
    }
}
