import APNs
import Foundation
import QueueModel

/// A delivery row as a claim reads it, on either engine (times in milliseconds since 1970).
package struct ClaimedRow {
    package var id: Int64
    package var campaign: Int64
    package var token: String
    package var environment: String
    package var attempts: Int
    /// Its registered device became inactive (or was deleted) since expansion: cancelled, not sent.
    package var deviceInactive: Bool
    package var registeredAt: Int64?
    package var createdAt: Int64
    /// How long the last retry waited (from its last answer to its due time), for decorrelated jitter.
    package var previousDelay: Int64?
    /// A broadcast's channel (local number); `token` then holds the id APNs gave it.
    package var channel: Int64?
    /// When it became due: `due_at` when it has one (leased or held before), else its `next_attempt_at`.
    package var dueAt: Int64?

    package init(
        id: Int64, campaign: Int64, token: String, environment: String, attempts: Int, deviceInactive: Bool,
        registeredAt: Int64?, createdAt: Int64, previousDelay: Int64?, channel: Int64? = nil, dueAt: Int64? = nil
    ) {
        self.id = id
        self.campaign = campaign
        self.token = token
        self.environment = environment
        self.attempts = attempts
        self.deviceInactive = deviceInactive
        self.registeredAt = registeredAt
        self.createdAt = createdAt
        self.previousDelay = previousDelay
        self.channel = channel
        self.dueAt = dueAt
    }

    /// The worker's job for this row, leased until `leasedUntil`.
    package func job(_ parameters: SendingParameters, leasedUntil: Int64) throws -> DeliveryJob {
        DeliveryJob(
            id: DeliveryID(id), campaignID: CampaignID(campaign), kind: parameters.kind,
            target: try Decode.target(token: token, channel: channel),
            environment: try Decode.environment(environment),
            content: parameters.content, attempts: attempts, deviceRegisteredAt: registeredAt.map(Milliseconds.date),
            leasedUntil: Milliseconds.date(leasedUntil), createdAt: Milliseconds.date(createdAt),
            previousDelay: previousDelay.map { .milliseconds(max($0, 0)) }, dueAt: dueAt.map(Milliseconds.date))
    }
}
