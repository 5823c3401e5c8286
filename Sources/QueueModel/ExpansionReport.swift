/// What one `expandDueCampaigns` call did.
public struct ExpansionReport: Hashable, Sendable {
    /// Pages expanded (one transaction each).
    public var pages = 0
    /// Delivery rows inserted.
    public var deliveriesInserted = 0
    /// Bulk campaigns whose expansion began during this call (scheduled until then, running from now on).
    public var startedCampaigns: [CampaignID] = []
    /// Campaigns whose expansion finished during this call.
    public var expandedCampaigns: [CampaignID] = []
    /// The deliveries inserted leased to the expanding worker, as its jobs (a leased expansion only).
    public var jobs: [DeliveryJob] = []
    /// Whether some due campaign still has pages to expand: call again (between claims).
    public var moreRemaining = false

    public init() {}
}
