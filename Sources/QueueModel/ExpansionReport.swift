/// What one `expandDueCampaigns` call did.
public struct ExpansionReport: Hashable, Sendable {
    /// Pages expanded (one transaction each).
    public var pages = 0
    /// Delivery rows inserted.
    public var deliveriesInserted = 0
    /// Campaigns whose expansion finished during this call.
    public var expandedCampaigns: [CampaignID] = []
    /// Whether some due campaign still has pages to expand: call again (between claims).
    public var moreRemaining = false

    public init() {}
}
