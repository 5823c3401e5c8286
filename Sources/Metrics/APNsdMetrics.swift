import APNs
import HTTP2Transport
import QueueModel

/// apnsd's metric families, declared once (issue #12, `GET /metrics`). Labels are bounded: statuses, reasons,
/// environments, classes and states by their known values (anything else is `other`), routes (templates such as
/// `/v1/campaigns/{id}`) and HTTP codes by the family's series cap. The gauges that read the database or the
/// transport (`queuePending`, `queueOldestDueAge`, `apnsConnections`, `devices`, `workers`) are meant to be given a
/// sampler (`MetricFamily.sample(with:)`) or set just before a scrape by whoever owns that source, so a scrape costs
/// what reading it costs.
public final class APNsdMetrics: Sendable {
    /// A delivery's reason label when it has none (accepted, pending).
    public static let noReason = "none"
    /// The APNs request status label when a written request got no HTTP answer (transport failure).
    public static let transportError = "error"
    /// The API routes notifications and campaigns are enqueued through (the CLI runs in its own process, so a
    /// serve's metrics cannot see its enqueues: `apnsd_queue_pending` does).
    public static let sources = ["notifications", "batch", "campaigns", "broadcasts"]

    public let registry = MetricsRegistry()
    public let buildInfo: MetricFamily
    public let notificationsEnqueued: MetricFamily
    public let deliveries: MetricFamily
    public let apnsRequests: MetricFamily
    public let apnsRequestDuration: MetricFamily
    public let queuePending: MetricFamily
    public let queueOldestDueAge: MetricFamily
    public let queueWait: MetricFamily
    public let workers: MetricFamily
    public let webhookBacklog: MetricFamily
    public let webhookParkedEvents: MetricFamily
    public let apnsConnections: MetricFamily
    public let apnsConnectFailures: MetricFamily
    public let apnsReachable: MetricFamily
    public let apnsUnreachableSeconds: MetricFamily
    public let providerTokensMinted: MetricFamily
    public let credentialPaused: MetricFamily
    public let certificateDaysLeft: MetricFamily
    public let devices: MetricFamily
    public let httpRequests: MetricFamily
    public let httpRequestDuration: MetricFamily

    public init(version: String) {
        let environments = [Environment.production.rawValue, Environment.development.rawValue]
        let reasons =
            Reason.documented.map(\.reason.rawValue)
            + [Reason.expired, .deviceInactive, .campaignCancelled].map(\.rawValue) + [Self.noReason]
        let apnsStatuses = ["200"] + Set(Reason.documented.map { String($0.status) }).sorted() + [Self.transportError]

        buildInfo = registry.gauge(
            "apnsd_build_info", help: "Always 1; the version apnsd was built as.", labels: [MetricLabel("version")],
            maxSeries: 1)
        notificationsEnqueued = registry.counter(
            "apnsd_notifications_enqueued_total",
            help: "Notifications and campaigns enqueued through the HTTP API (replays not counted), by route.",
            labels: [MetricLabel("source", allowed: Self.sources)])
        deliveries = registry.counter(
            "apnsd_deliveries_total", help: "Deliveries that reached a final status, by status and APNs reason.",
            labels: [
                MetricLabel("status", allowed: DeliveryStatus.allCases.map(\.rawValue)),
                MetricLabel("reason", allowed: reasons),
            ],
            maxSeries: 500)
        apnsRequests = registry.counter(
            "apnsd_apns_requests_total",
            help:
                "Requests written to APNs, by environment and HTTP status (error: written, no answer; a request that could not connect counts in apnsd_apns_connect_failures_total).",
            labels: [MetricLabel("environment", allowed: environments), MetricLabel("status", allowed: apnsStatuses)])
        apnsRequestDuration = registry.histogram(
            "apnsd_apns_request_duration_seconds",
            help:
                "Time from a request's first byte written to APNs to its answer (waits in the local throttle excluded)."
        )
        queuePending = registry.gauge(
            "apnsd_queue_pending", help: "Pending deliveries, by class (single sends ahead of bulk campaigns).",
            labels: [MetricLabel("class", allowed: CampaignKind.allCases.map(\.rawValue))])
        let classes = [MetricLabel("class", allowed: CampaignKind.allCases.map(\.rawValue))]
        queueOldestDueAge = registry.gauge(
            "apnsd_queue_oldest_due_age_seconds",
            help:
                "How long the oldest due pending delivery has been due, by class (0 when none is); leased ones and those held by an outage or a paused credential count, a paused campaign's and a future send time's do not.",
            labels: classes)
        queueWait = registry.histogram(
            "apnsd_queue_wait_seconds",
            help: "Time from a delivery being due to its request being written to APNs (each attempt), by class.",
            labels: classes, buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600])
        workers = registry.gauge(
            "apnsd_workers",
            help:
                "Registered workers by heartbeat: live, or stale (heartbeat older than worker.lease, or its process seen gone: its leases are taken over).",
            labels: [MetricLabel("state", allowed: ["live", "stale"])])
        webhookBacklog = registry.gauge(
            "apnsd_webhook_backlog_events",
            help: "Events the webhook has not acknowledged yet; absent when no webhook is configured.")
        webhookBacklog.sample { [] }
        webhookParkedEvents = registry.counter(
            "apnsd_webhook_parked_events_total",
            help:
                "Events the webhook set aside in parked batches (refused webhook.maxAttempts times, failing for an hour) so that later events go on."
        )
        apnsConnections = registry.gauge(
            "apnsd_apns_connections",
            help:
                "Configured HTTP/2 connections to APNs, by environment and state (open; connecting: none open yet, or closed while idle; backoff: pausing after a failed connection attempt).",
            labels: [
                MetricLabel("environment", allowed: environments),
                MetricLabel("state", allowed: ConnectionState.allCases.map(\.rawValue)),
            ])
        apnsConnectFailures = registry.counter(
            "apnsd_apns_connect_failures_total",
            help:
                "Connection attempts to APNs that failed, by environment and reason (dns, connect, tls, timeout, other).",
            labels: [
                MetricLabel("environment", allowed: environments),
                MetricLabel("reason", allowed: ConnectFailureReason.allCases.map(\.rawValue)),
            ])
        apnsReachable = registry.gauge(
            "apnsd_apns_reachable",
            help:
                "1 while this worker reaches APNs, 0 from a failed connection attempt until a request reaches it again; by environment (absent for one never used).",
            labels: [MetricLabel("environment", allowed: environments)])
        apnsUnreachableSeconds = registry.gauge(
            "apnsd_apns_unreachable_seconds",
            help:
                "How long this worker has not reached APNs (0 while it does); by environment (absent for one never used).",
            labels: [MetricLabel("environment", allowed: environments)])
        providerTokensMinted = registry.counter(
            "apnsd_provider_tokens_minted_total", help: "Provider authentication tokens (JWT) signed.")
        credentialPaused = registry.gauge(
            "apnsd_credential_paused",
            help:
                "1 while a credential's deliveries are paused because APNs refused it (or it cannot sign), else 0; by credential name.",
            labels: [MetricLabel("credential")], maxSeries: 100)
        certificateDaysLeft = registry.gauge(
            "apnsd_certificate_days_left",
            help:
                "Whole days until a certificate credential's client certificate expires (negative: expired); by credential name.",
            labels: [MetricLabel("credential")], maxSeries: 100)
        devices = registry.gauge(
            "apnsd_devices", help: "Registered devices, by state.",
            labels: [MetricLabel("state", allowed: ["active", "inactive"])])
        httpRequests = registry.counter(
            "apnsd_http_requests_total", help: "Requests to apnsd's HTTP API, by route template and status code.",
            labels: [MetricLabel("route"), MetricLabel("code")], maxSeries: 300)
        httpRequestDuration = registry.histogram(
            "apnsd_http_request_duration_seconds", help: "Time apnsd's HTTP API took to answer, by route template.",
            labels: [MetricLabel("route")], maxSeries: 50)
        buildInfo.set(version, to: 1)
    }

    /// Counts a delivery that reached `status` (with APNs's `reason`, if any).
    public func delivered(_ status: DeliveryStatus, reason: Reason?) {
        deliveries.increment(status.rawValue, reason?.rawValue ?? Self.noReason)
    }

    /// Counts a request to APNs answered with `status` (nil: no answer) after `seconds`.
    public func apnsRequest(_ environment: Environment, status: Int?, seconds: Double) {
        apnsRequests.increment(environment.rawValue, status.map(String.init) ?? Self.transportError)
        apnsRequestDuration.observe(seconds)
    }

    /// Counts `count` failed connection attempts to APNs in `environment`.
    public func connectFailed(_ environment: Environment, reason: ConnectFailureReason, count: Int) {
        apnsConnectFailures.increment(environment.rawValue, reason.rawValue, by: Double(count))
    }

    /// Sets the store's gauges: pending deliveries and the oldest due one's age by class, devices by state, and
    /// with a `webhook` its backlog (absent without one).
    public func update(_ gauges: QueueGauges, webhook: Bool = false) {
        queuePending.set(CampaignKind.single.rawValue, to: Double(gauges.pendingSingle))
        queuePending.set(CampaignKind.bulk.rawValue, to: Double(gauges.pendingBulk))
        queueOldestDueAge.set(CampaignKind.single.rawValue, to: gauges.oldestDueAgeSingle)
        queueOldestDueAge.set(CampaignKind.bulk.rawValue, to: gauges.oldestDueAgeBulk)
        if webhook {
            webhookBacklog.sample(with: nil)
            webhookBacklog.set(to: Double(gauges.webhookBacklog))
        }
        devices.set("active", to: Double(gauges.activeDevices))
        devices.set("inactive", to: Double(gauges.inactiveDevices))
    }

    /// Sets the registered workers by state.
    public func update(workers live: Int, stale: Int) {
        workers.set("live", to: Double(live))
        workers.set("stale", to: Double(stale))
    }

    /// Counts a request to the HTTP API on `route` (its template) answered with `code` after `seconds`.
    public func httpRequest(route: String, code: Int, seconds: Double) {
        httpRequests.increment(route, String(code))
        httpRequestDuration.observe(seconds, route)
    }

    /// Counts a request the HTTP server answered by itself on `route` with `code` (a head refused, a body over a
    /// limit, a connection past the cap): no handler ran, so no duration is observed.
    public func httpAnsweredByServer(route: String, code: Int) {
        httpRequests.increment(route, String(code))
    }

    /// The exposition text, for `GET /metrics`.
    public func render() -> String { registry.render() }
}
