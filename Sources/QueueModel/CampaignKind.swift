/// Single sends (`apnsd send`) are claimed before any bulk work, so a transactional push never waits
/// behind a million-device campaign.
public enum CampaignKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case single
    case bulk
    /// A bulk campaign that checks devices (`apnsd device verify`): a background push to each, whose 410 and 400
    /// answers deactivate them.
    case verify

    public var description: String { rawValue }
}
