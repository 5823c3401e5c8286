import APNs
import Foundation
import HTTP2Transport
import Logging
import QueueModel

/// The lines the driver writes itself, from what it reads: one per APNs answer (at debug level), and campaigns
/// starting and finishing (their counts read from the store). The machine's own lines come as `LogLine`s.
extension Worker {
    /// At debug level: one line per APNs answer, with the token's prefix (never all of it), status, reason and
    /// latency.
    func logAnswer(_ job: DeliveryJob, _ answer: TransportResult, seconds: Double) {
        let logger = self.logger
        guard logger.minimumLevel <= .debug else { return }
        let target: (String, Logger.Value)
        switch job.target {
        case .device(let token): target = ("token", .string(token.description))
        case .channel(let id, _): target = ("channel", .string(String(id)))
        }
        // No status without an answer: the reason then says what went wrong on the way.
        let status: [(String, Logger.Value)] = answer.status.map { [("status", .int($0))] } ?? []
        logger.log(
            .debug, "apns.request",
            [
                target, ("apns.environment", .string(job.environment.rawValue)),
                ("campaign.id", .string(job.campaignID.description)),
            ] + status + [
                (
                    "reason",
                    .string(answer.errorResponse?.reason?.rawValue ?? (answer.status == nil ? "\(answer)" : ""))
                ),
                ("latency_ms", .decimal(seconds * 1000, places: 1)),
            ])
    }

    /// Bulk campaigns whose expansion began (they are running from now on).
    func reportExpansion(_ report: ExpansionReport) async {
        for id in report.startedCampaigns {
            guard let campaign = try? await store.campaign(id) else { continue }
            logger.info(
                "campaign.started", ("campaign.id", .string(id.description)),
                ("audience", .string(campaign.audience.kind.rawValue)),
                ("topic", .string(campaign.content.topic)),
                ("scheduled_at", .string(Logger.timestamp(campaign.scheduledAt))))
            if campaign.status.isFinished { logCampaignFinished(campaign) }
        }
    }

    func logCampaignFinished(_ campaign: Campaign) {
        let c = campaign.counters
        let seconds =
            campaign.finishedAt.map { finished in campaign.startedAt.map { finished.timeIntervalSince($0) } ?? 0 } ?? 0
        logger.info(
            "campaign.finished", ("campaign.id", .string(campaign.id.description)),
            ("status", .string(campaign.status.rawValue)),
            ("total", .int(c.total)), ("accepted", .int(c.accepted)), ("unregistered", .int(c.unregistered)),
            ("rejected", .int(c.rejected)), ("failed", .int(c.failed)), ("cancelled", .int(c.cancelled)),
            ("seconds", .decimal(seconds, places: 1)))
    }
}
