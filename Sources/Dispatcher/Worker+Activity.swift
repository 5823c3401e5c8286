import APNs
import Foundation
import HTTP2Transport
import QueueModel

/// The lines an operator reads to know what the worker is doing: campaigns starting and finishing, a throughput
/// line every 10 s (`throughputLogInterval`) while sending, connections opening and closing, devices deactivated per written batch, and at
/// debug level one line per APNs answer.
extension Worker {
    /// How often the connections' states are sampled for opened/closed lines.
    static let connectionSampleInterval: TimeInterval = 0.25

    /// Since the last throughput line.
    struct ActivityWindow: Sendable {
        var since: Date
        var baseline: WorkerSummary
        var deactivated = 0
    }

    /// The throughput line, once `throughputInterval` has passed with something sent in it.
    func reportThroughput(_ state: inout RunState, now: Date) {
        let window = state.activity ?? ActivityWindow(since: now, baseline: state.summary)
        let seconds = now.timeIntervalSince(window.since)
        guard state.activity != nil, seconds >= configuration.throughputLogInterval.seconds else {
            if state.activity == nil { state.activity = window }
            return
        }
        let current = state.summary
        let requests = current.sent - window.baseline.sent
        if requests > 0 || state.inFlight > 0 {
            logger.info(
                "worker.throughput", ("requests_per_second", String(format: "%.1f", Double(requests) / seconds)),
                ("requests", String(requests)), ("accepted", String(current.accepted - window.baseline.accepted)),
                ("retried", String(current.retried - window.baseline.retried)),
                ("rejected", String(current.rejected - window.baseline.rejected)),
                ("failed", String(current.failed - window.baseline.failed)),
                ("deactivated", String(window.deactivated)), ("in_flight", String(state.inFlight)),
                ("queued", String(state.queued + state.heldCount)), ("seconds", String(format: "%.1f", seconds)))
        }
        state.activity = ActivityWindow(since: now, baseline: current)
    }

    /// One line per connection that opened or closed since the last sample (libcurl opens and closes them; the
    /// transport's counters say which, and the last error says why one closed).
    func reportConnections(_ state: inout RunState, now: Date) {
        guard now >= state.nextConnectionSample else { return }
        state.nextConnectionSample = now.addingTimeInterval(Self.connectionSampleInterval)
        for (key, connections) in transport.stats {
            for (index, stats) in connections.enumerated() {
                let name = "\(key.environment.rawValue)/\(index)"
                let was = state.connectionsOpen[name] ?? false
                state.connectionsOpen[name] = stats.isOpen
                if stats.isOpen && !was {
                    logger.info(
                        "apns.connection_opened", ("apns.environment", key.environment.rawValue),
                        ("connection", String(index)),
                        ("reconnects", String(stats.reconnects)))
                } else if !stats.isOpen && was {
                    logger.info(
                        "apns.connection_closed", ("apns.environment", key.environment.rawValue),
                        ("connection", String(index)),
                        ("reason", stats.lastError?.description ?? "closed without an error (idle, or APNs went away)"))
                }
            }
        }
    }

    /// At debug level: one line per APNs answer, with the token's prefix (never all of it), status, reason and
    /// latency.
    func logAnswer(_ job: DeliveryJob, _ answer: TransportResult, seconds: Double) {
        let logger = self.logger
        guard logger.minimumLevel <= .debug else { return }
        let target: (String, String)
        switch job.target {
        case .device(let token): target = ("token", token.description)
        case .channel(let id, _): target = ("channel", String(id))
        }
        logger.debug(
            "apns.request", target, ("apns.environment", job.environment.rawValue),
            ("campaign.id", job.campaignID.description), ("status", answer.status.map(String.init) ?? "none"),
            ("reason", answer.errorResponse?.reason?.rawValue ?? (answer.status == nil ? "\(answer)" : "")),
            ("latency_ms", String(format: "%.1f", seconds * 1000)))
    }

    /// After a batch of outcomes was written: the devices it deactivated, and the bulk campaigns it finished (with
    /// their counts: single sends finish by the thousand and are counted by the throughput line instead).
    func logRecorded(_ results: [DeliveryResult], _ report: RecordReport, state: inout RunState) async {
        if report.devicesDeactivated > 0 {
            state.activity?.deactivated += report.devicesDeactivated
            var reasons: [String: Int] = [:]
            for result in results {
                if let reason = result.deactivation?.reason { reasons[reason.rawValue, default: 0] += 1 }
            }
            logger.info(
                "worker.devices_deactivated", ("devices", String(report.devicesDeactivated)),
                ("answers", reasons.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")))
        }
        for id in report.completedCampaigns where state.bulkCampaigns.remove(id.rawValue) != nil {
            guard let campaign = try? await store.campaign(id) else { continue }
            logCampaignFinished(campaign)
        }
    }

    /// Bulk campaigns whose expansion began (they are running from now on).
    func reportExpansion(_ report: ExpansionReport) async {
        for id in report.startedCampaigns {
            guard let campaign = try? await store.campaign(id) else { continue }
            logger.info(
                "campaign.started", ("campaign.id", id.description), ("audience", campaign.audience.kind.rawValue),
                ("topic", campaign.content.topic),
                ("scheduled_at", ISO8601DateFormatter().string(from: campaign.scheduledAt)))
            if campaign.status.isFinished { logCampaignFinished(campaign) }
        }
    }

    private func logCampaignFinished(_ campaign: Campaign) {
        let c = campaign.counters
        let seconds =
            campaign.finishedAt.map { finished in campaign.startedAt.map { finished.timeIntervalSince($0) } ?? 0 } ?? 0
        logger.info(
            "campaign.finished", ("campaign.id", campaign.id.description), ("status", campaign.status.rawValue),
            ("total", String(c.total)), ("accepted", String(c.accepted)), ("unregistered", String(c.unregistered)),
            ("rejected", String(c.rejected)), ("failed", String(c.failed)), ("cancelled", String(c.cancelled)),
            ("seconds", String(format: "%.1f", seconds)))
    }
}
