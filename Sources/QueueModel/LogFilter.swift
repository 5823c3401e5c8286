import APNs
import Foundation

/// Which log rows to list; nil fields do not filter.
public struct LogFilter: Hashable, Sendable {
    public var campaign: CampaignID?
    public var token: DeviceToken?
    public var status: DeliveryStatus?
    /// Deliveries to the devices of this user.
    public var user: String?
    public var reason: Reason?
    /// Deliveries last updated at or after this time.
    public var since: Date?
    /// Deliveries last updated before this time.
    public var until: Date?

    public init(
        campaign: CampaignID? = nil, token: DeviceToken? = nil, status: DeliveryStatus? = nil, user: String? = nil,
        reason: Reason? = nil, since: Date? = nil, until: Date? = nil
    ) {
        self.campaign = campaign
        self.token = token
        self.status = status
        self.user = user
        self.reason = reason
        self.since = since
        self.until = until
    }
}
