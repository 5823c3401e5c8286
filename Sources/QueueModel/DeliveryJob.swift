import APNs
import Foundation

/// One claimed delivery: everything the worker needs to send one notification to one device or channel.
public struct DeliveryJob: Hashable, Sendable {
    public var id: DeliveryID
    public var campaignID: CampaignID
    public var kind: CampaignKind
    public var target: DeliveryTarget
    public var environment: Environment
    /// What to send, shared (copy-on-write) between the jobs of one campaign.
    public var content: NotificationContent
    /// Attempts recorded so far (0 on the first send).
    public var attempts: Int
    /// The device's last registration, when the token is registered; nil for an unregistered token.
    public var deviceRegisteredAt: Date?
    /// Until when this job is leased to the claiming worker; after it, the delivery can be claimed again.
    public var leasedUntil: Date
    /// When the delivery row was created (its campaign expanded): `retry.maxAge` counts from here.
    public var createdAt: Date
    /// For a retry, how long it waited before this claim (its due time minus when its last answer was
    /// recorded): decorrelated jitter draws the next delay from it. Nil on a first send.
    public var previousDelay: Duration?
    /// When the delivery became due: its claim's due time, or for one leased or held before, when it first was
    /// (`deliveries.due_at`). `apnsd_queue_wait_seconds` counts from here.
    public var dueAt: Date

    /// A job built by hand: for workers' decision tests and other engines behind `DeliveryStore`.
    public init(
        id: DeliveryID, campaignID: CampaignID, kind: CampaignKind, token: DeviceToken, environment: Environment,
        content: NotificationContent, attempts: Int, deviceRegisteredAt: Date?, leasedUntil: Date,
        createdAt: Date? = nil,
        previousDelay: Duration? = nil, dueAt: Date? = nil
    ) {
        self.init(
            id: id, campaignID: campaignID, kind: kind, target: .device(token), environment: environment,
            content: content,
            attempts: attempts, deviceRegisteredAt: deviceRegisteredAt, leasedUntil: leasedUntil, createdAt: createdAt,
            previousDelay: previousDelay, dueAt: dueAt)
    }

    /// A job to a device or a broadcast channel; without `dueAt`, due since it was created.
    public init(
        id: DeliveryID, campaignID: CampaignID, kind: CampaignKind, target: DeliveryTarget, environment: Environment,
        content: NotificationContent, attempts: Int, deviceRegisteredAt: Date?, leasedUntil: Date,
        createdAt: Date? = nil,
        previousDelay: Duration? = nil, dueAt: Date? = nil
    ) {
        self.id = id
        self.campaignID = campaignID
        self.kind = kind
        self.target = target
        self.environment = environment
        self.content = content
        self.attempts = attempts
        self.deviceRegisteredAt = deviceRegisteredAt
        self.leasedUntil = leasedUntil
        self.createdAt = createdAt ?? leasedUntil
        self.previousDelay = previousDelay
        self.dueAt = dueAt ?? self.createdAt
    }

    /// The device token; nil for a broadcast.
    public var token: DeviceToken? { target.token }

    /// Whether it goes to a broadcast channel.
    public var isBroadcast: Bool { target.channel != nil }
}
