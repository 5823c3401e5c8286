import APNs
import Foundation

/// A registered device, as `apnsd device list` shows it.
public struct Device: Hashable, Sendable, Identifiable {
    /// The registry's row id; also the cursor for paging through `ProducerStore.devices(active:after:limit:)`.
    public var id: Int64
    public var token: DeviceToken
    public var topic: String
    public var environment: Environment
    public var user: String?
    /// Inactive devices are never sent to.
    public var isActive: Bool
    /// The last (re-)registration; a 410 whose timestamp is older than this does not deactivate the device.
    public var registeredAt: Date
    public var deactivatedAt: Date?
    /// Why the device was deactivated (an APNs reason such as `Unregistered` or `BadDeviceToken`).
    public var reason: Reason?
    /// What the token is for: a device, a Live Activity's update token or the app's push-to-start token.
    public var kind: DeviceKind
    /// The ActivityAttributes type name of an `activity` or `pushToStart` token; nil for a device.
    public var activityType: String?

    public init(
        id: Int64, token: DeviceToken, topic: String, environment: Environment, user: String?,
        isActive: Bool, registeredAt: Date, deactivatedAt: Date?, reason: Reason?,
        kind: DeviceKind = .device, activityType: String? = nil
    ) {
        self.id = id
        self.token = token
        self.topic = topic
        self.environment = environment
        self.user = user
        self.isActive = isActive
        self.registeredAt = registeredAt
        self.deactivatedAt = deactivatedAt
        self.reason = reason
        self.kind = kind
        self.activityType = activityType
    }
}
