import APNs

/// Who a campaign goes to. Every audience is limited to devices of the campaign's topic.
public enum Audience: Hashable, Sendable {
    /// These tokens. A registered token (for the campaign's topic) is sent in its registered environment and
    /// skipped (cancelled, reason `DeviceInactive`) when inactive; a token that is not registered is sent
    /// anyway, in `environment` (default production), and is not added to the registry.
    case tokens([DeviceToken], environment: Environment? = nil)
    /// The active devices of these users, optionally only those of one environment.
    case users([String], environment: Environment? = nil)
    /// Every active device of the topic, optionally only those of one environment.
    case all(environment: Environment? = nil)

    /// The kind of audience, as a store records it.
    public var kind: AudienceKind {
        switch self {
        case .tokens: return .tokens
        case .users: return .users
        case .all: return .all
        }
    }

    /// For `.tokens`: the environment of unregistered tokens; otherwise a filter. nil: not given.
    public var environment: Environment? {
        switch self {
        case .tokens(_, let environment), .users(_, let environment), .all(let environment): return environment
        }
    }
}

/// The kind of a campaign's audience, as stored in `campaigns.audience`.
public enum AudienceKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case tokens
    case users
    case all

    public var description: String { rawValue }
}

/// A campaign's audience as stored: staged tokens and user ids are consumed while the audience is expanded,
/// so what remains is the kind, the environment and the number of tokens or users given.
public struct AudienceSummary: Hashable, Sendable {
    public var kind: AudienceKind
    /// For `.tokens`: the environment for unregistered tokens; otherwise a filter. nil: not given.
    public var environment: Environment?
    /// How many tokens or user ids were given (duplicates included); 0 for `.all`.
    public var size: Int

    public init(kind: AudienceKind, environment: Environment?, size: Int) {
        self.kind = kind
        self.environment = environment
        self.size = size
    }
}
