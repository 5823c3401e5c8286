import APNs

/// Which log rows to list; nil fields do not filter.
public struct LogFilter: Hashable, Sendable {
    public var campaign: CampaignID?
    public var token: DeviceToken?
    public var status: DeliveryStatus?

    public init(campaign: CampaignID? = nil, token: DeviceToken? = nil, status: DeliveryStatus? = nil) {
        self.campaign = campaign
        self.token = token
        self.status = status
    }
}
