import APNs
import QueueModel

/// What cancelling a campaign does to its deliveries, on either engine and in the worker: those not answered yet
/// end `cancelled` with `CampaignCancelled`; an answer recorded later replaces that (`DeliveryStatus.accepts`).
package enum CampaignCancel {
    /// The status and reason of a delivery the cancel stopped.
    package static let stopped = (status: DeliveryStatus.cancelled, reason: Reason.campaignCancelled)

    /// The SET clause of a cancel's UPDATE of the campaign's pending deliveries (lease cleared).
    package static let stoppedSQL =
        "status = '\(stopped.status.rawValue)', reason = '\(stopped.reason.rawValue)', leased_until = NULL, leased_by = NULL"
}
