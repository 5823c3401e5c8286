import APNs
import Foundation

/// Something a backend may need to act on, as the event feed and the webhook give it.
public struct Event: Hashable, Sendable, Identifiable {
    public var id: EventID
    public var type: EventType
    public var token: DeviceToken
    public var topic: String
    /// The device's (or the delivery's) APNs environment.
    public var environment: Environment
    /// The device's user, when it has one.
    public var user: String?
    /// Why: the APNs reason, or apnsd's own (`Replaced`, `Removed`, `Expired`).
    public var reason: Reason?
    /// When the change was written.
    public var at: Date
    /// The campaign and delivery involved: always for `delivery.failed`, for `device.deactivated` when a
    /// delivery's answer deactivated the device.
    public var campaignID: CampaignID?
    public var deliveryID: DeliveryID?

    public init(
        id: EventID, type: EventType, token: DeviceToken, topic: String, environment: Environment, user: String?,
        reason: Reason?, at: Date, campaignID: CampaignID? = nil, deliveryID: DeliveryID? = nil
    ) {
        self.id = id
        self.type = type
        self.token = token
        self.topic = topic
        self.environment = environment
        self.user = user
        self.reason = reason
        self.at = at
        self.campaignID = campaignID
        self.deliveryID = deliveryID
    }
}
