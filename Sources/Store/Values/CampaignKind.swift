/// Single sends (`apnsd send`) are claimed before any bulk work, so a transactional push never waits
/// behind a million-device campaign.
public enum CampaignKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case single
    case bulk

    /// The `deliveries.priority_class` value: lower is claimed first.
    var priorityClass: Int { self == .single ? 0 : 1 }

    public var description: String { rawValue }
}
