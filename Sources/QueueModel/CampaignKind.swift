/// Single sends (`apnsd send`) are claimed before any bulk work, so a transactional push never waits
/// behind a million-device campaign.
public enum CampaignKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case single
    case bulk

    public var description: String { rawValue }
}
