import QueueModel

extension CampaignKind {
    /// The `deliveries.priority_class` value: lower is claimed first.
    var priorityClass: Int { self == .single ? 0 : 1 }
}
