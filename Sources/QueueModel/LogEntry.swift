import APNs
import Foundation

/// One row of the delivery log (`apnsd log`).
public struct LogEntry: Hashable, Sendable, Identifiable {
    public var id: DeliveryID
    public var campaignID: CampaignID
    /// The device, or the broadcast channel.
    public var target: DeliveryTarget
    public var environment: Environment
    public var status: DeliveryStatus
    public var httpStatus: Int?
    public var reason: Reason?
    public var apnsID: String?
    public var attempts: Int
    /// When a pending delivery may next be sent (or until when it is leased); nil once final.
    public var nextAttemptAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: DeliveryID, campaignID: CampaignID, target: DeliveryTarget, environment: Environment,
        status: DeliveryStatus,
        httpStatus: Int?, reason: Reason?, apnsID: String?, attempts: Int, nextAttemptAt: Date?, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.campaignID = campaignID
        self.target = target
        self.environment = environment
        self.status = status
        self.httpStatus = httpStatus
        self.reason = reason
        self.apnsID = apnsID
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The device token; nil for a broadcast.
    public var token: DeviceToken? { target.token }

    /// A broadcast's channel (local number); nil for a device.
    public var channel: Int64? { target.channel }
}
