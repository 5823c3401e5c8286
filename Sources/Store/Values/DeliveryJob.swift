import APNs
import Foundation

/// One claimed delivery: everything the worker needs to send one notification to one device.
public struct DeliveryJob: Hashable, Sendable {
    public var id: DeliveryID
    public var campaignID: CampaignID
    public var kind: CampaignKind
    public var token: DeviceToken
    public var environment: Environment
    /// The bundle id (without the push type's suffix).
    public var topic: String
    public var pushType: PushType
    public var priority: Priority
    public var expiration: Expiration?
    public var collapseID: CollapseID?
    /// The payload bytes, shared (copy-on-write) between the jobs of one campaign.
    public var payload: [UInt8]
    /// Attempts recorded so far (0 on the first send).
    public var attempts: Int
    /// The device's last registration, when the token is registered; nil for an unregistered token.
    public var deviceRegisteredAt: Date?
    /// Until when this job is leased to the claiming worker; after it, the delivery can be claimed again.
    public var leasedUntil: Date
    /// When the delivery row was created (its campaign expanded): `retry.maxAge` counts from here.
    public var createdAt: Date

    /// A job built by hand: for workers' decision tests and other engines behind `DeliveryStore`.
    public init(id: DeliveryID, campaignID: CampaignID, kind: CampaignKind, token: DeviceToken, environment: Environment,
                topic: String, pushType: PushType, priority: Priority, expiration: Expiration?, collapseID: CollapseID?,
                payload: [UInt8], attempts: Int, deviceRegisteredAt: Date?, leasedUntil: Date,
                createdAt: Date? = nil) {
        self.id = id
        self.campaignID = campaignID
        self.kind = kind
        self.token = token
        self.environment = environment
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.attempts = attempts
        self.deviceRegisteredAt = deviceRegisteredAt
        self.leasedUntil = leasedUntil
        self.createdAt = createdAt ?? leasedUntil
    }
}
