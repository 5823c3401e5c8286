/// What one `record` call did.
public struct RecordReport: Hashable, Sendable {
    /// Results written.
    public var applied = 0
    /// Results for unknown or already-final deliveries, which changed nothing.
    public var ignored = 0
    /// Devices deactivated by this batch (a 410 older than the device's last registration deactivates nothing).
    public var devicesDeactivated = 0
    /// Campaigns that completed with this batch.
    public var completedCampaigns: [CampaignID] = []

    public init() {}
}
