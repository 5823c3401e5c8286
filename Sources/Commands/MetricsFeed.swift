import APNs
import Dispatcher
import Foundation
import HTTP2Transport
import Metrics
import QueueModel

/// Feeds apnsd's metrics in `apnsd serve` and `apnsd worker --worker-listen`: the worker's answers and outcomes (as
/// its `WorkerObserver`), its transport's connections, credentials and reachability (`watch(worker:)`, sampled at
/// scrape time), the provider tokens minted, and the store's gauges (read through the store actor just before each
/// scrape renders).
final class MetricsFeed: WorkerObserver {
    let metrics: APNsdMetrics
    private let store: any GaugeStore
    private let clock: @Sendable () -> Date
    /// `worker.lease`: a worker whose heartbeat is older is stale.
    private let lease: Duration
    /// Whether a webhook is configured (its backlog is shown only then).
    private let webhook: Bool

    init(
        metrics: APNsdMetrics, store: any GaugeStore, lease: Duration, webhook: Bool,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.metrics = metrics
        self.store = store
        self.lease = lease
        self.webhook = webhook
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

    func connectFailed(_ environment: Environment, reason: ConnectFailureReason, count: Int) {
        metrics.connectFailed(environment, reason: reason, count: count)
    }

    func queueWaited(_ kind: CampaignKind, seconds: Double) {
        metrics.queueWait.observe(seconds, kind.rawValue)
    }

    /// Samples every gauge the running `worker` owns: its connections, its credentials, and whether it reaches APNs.
    /// The one place a worker's metrics are wired, for serve and the standalone worker alike.
    func watch(worker: Worker) {
        watch(worker.transport)
        watch(credentials: { [weak worker] in worker?.credentialStatuses ?? [] })
        let clock = self.clock
        let reachability: @Sendable () -> [(environment: Environment, since: Date?)] = { [weak worker] in
            guard let worker else { return [] }
            let out = worker.unreachableSince
            return worker.environmentsUsed.union(out.keys).map { ($0, out[$0]) }
        }
        metrics.apnsReachable.sample {
            reachability().map { (labels: [$0.environment.rawValue], value: $0.since == nil ? 1 : 0) }
        }
        metrics.apnsUnreachableSeconds.sample {
            let now = clock()
            return reachability().map { entry in
                (
                    labels: [entry.environment.rawValue],
                    value: entry.since.map { max(0, now.timeIntervalSince($0)) } ?? 0
                )
            }
        }
    }

    /// Samples `apnsd_apns_connections` from `transport`'s pools (a lock per connection, no I/O): every state of an
    /// environment in use, zeros included; nothing for one never used.
    private func watch(_ transport: TransportRegistry) {
        metrics.apnsConnections.sample { [weak transport] in
            var counts: [Environment: [ConnectionState: Int]] = [:]
            for (key, connections) in transport?.stats ?? [:] {
                for connection in connections {
                    counts[key.environment, default: [:]][connection.state, default: 0] += 1
                }
            }
            return counts.flatMap { environment, states in
                ConnectionState.allCases.map { state in
                    (labels: [environment.rawValue, state.rawValue], value: Double(states[state] ?? 0))
                }
            }
        }
    }

    /// Samples `apnsd_credential_paused` and `apnsd_certificate_days_left` from the worker's credentials.
    private func watch(credentials: @escaping @Sendable () -> [CredentialStatus]) {
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

    /// Reads the store's gauges and workers into the metrics; a store that fails (closed, locked) leaves the last
    /// values. A worker is stale as `apnsd workers` says: its process seen gone, or its heartbeat older than the lease.
    func refreshGauges() async {
        let now = clock()
        if let gauges = try? await store.gauges(now: now) { metrics.update(gauges, webhook: webhook) }
        guard let workers = try? await store.workers() else { return }
        let stale = workers.filter { $0.processIsGone || $0.isStale(now: now, lease: lease) }.count
        metrics.update(workers: workers.count - stale, stale: stale)
    }
}
