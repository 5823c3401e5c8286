import APNs
import Foundation

/// One row of the delivery log (`apnsd log`).
public struct LogEntry: Hashable, Sendable, Identifiable {
    public var id: DeliveryID
    public var campaignID: CampaignID
    public var token: DeviceToken
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

    public init(id: DeliveryID, campaignID: CampaignID, token: DeviceToken, environment: Environment, status: DeliveryStatus,
                httpStatus: Int?, reason: Reason?, apnsID: String?, attempts: Int, nextAttemptAt: Date?, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.campaignID = campaignID
        self.token = token
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
}
