import APNs
import Foundation
import HTTP2Transport
import QueueModel

/// The lines the driver writes itself, from what it reads: one per APNs answer (at debug level), and campaigns
/// starting and finishing (their counts read from the store). The machine's own lines come as `LogLine`s.
extension Worker {
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

    func logCampaignFinished(_ campaign: Campaign) {
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
