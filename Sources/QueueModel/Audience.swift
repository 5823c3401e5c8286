import APNs

/// Who a campaign goes to. Every audience is limited to devices of the campaign's topic. `.all` and `.users` reach
/// devices of kind `device` only (a regular push never goes to a Live Activity token); `.activities` reaches Live
/// Activity tokens only; `.tokens` sends to the tokens given, whatever their kind.
public enum Audience: Hashable, Sendable {
    /// These tokens. A registered token (for the campaign's topic) is sent in its registered environment and
    /// skipped (cancelled, reason `DeviceInactive`) when inactive; a token that is not registered is sent
    /// anyway, in `environment` (default production), and is not added to the registry.
    case tokens([DeviceToken], environment: Environment? = nil)
    /// The active devices of these users, optionally only those of one environment.
    case users([String], environment: Environment? = nil)
    /// Every active device of the topic, optionally only those of one environment.
    case all(environment: Environment? = nil)
    /// The active Live Activity tokens of `kind` (`activity`: update tokens; `pushToStart`) registered for the
    /// activity type `type`, of these users when `users` is given; optionally only those of one environment.
    /// Live Activity tokens are registered under the app's bundle id, like devices, and matched with the
    /// campaign's bundle id; the campaign's push type is `liveactivity` (`CampaignSpec.validate`).
    case activities(type: String, kind: DeviceKind = .activity, users: [String]? = nil, environment: Environment? = nil)
    /// A broadcast (iOS 18) to the channel with this local number (`channels`, `apnsd channel list`): one delivery,
    /// sent with `POST /4/broadcasts/apps/<bundle id>` in the channel's environment. A single send.
    case channel(Int64)

    /// The kind of audience, as a store records it.
    public var kind: AudienceKind {
        switch self {
        case .tokens, .channel: return .tokens
        case .users: return .users
        case .all: return .all
        case .activities(_, _, let users, _): return users == nil ? .all : .users
        }
    }

    /// For `.activities`: the activity type and the kind of token it reaches; nil for the other audiences.
    public var activity: ActivitySelector? {
        guard case .activities(let type, let kind, _, _) = self else { return nil }
        return ActivitySelector(type: type, kind: kind)
    }

    /// For `.tokens`: the environment of unregistered tokens; otherwise a filter. nil: not given.
    public var environment: Environment? {
        switch self {
        case .tokens(_, let environment), .users(_, let environment), .all(let environment),
            .activities(_, _, _, let environment):
            return environment
        case .channel:
            return nil
        }
    }

    /// For `.channel`: the channel's local number; nil for the other audiences.
    public var channel: Int64? {
        guard case .channel(let id) = self else { return nil }
        return id
    }
}

/// The kind of a campaign's audience, as stored in `campaigns.audience` (an activity audience is stored as `all`
/// or `users`, with its `ActivitySelector` beside it).
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
    /// For an activity audience: the Live Activity tokens it reaches; nil for device audiences.
    public var activity: ActivitySelector?
    /// For a broadcast: the channel's local number (stored with kind `tokens`, size 1); nil otherwise.
    public var channel: Int64?

    public init(
        kind: AudienceKind, environment: Environment?, size: Int, activity: ActivitySelector? = nil,
        channel: Int64? = nil
    ) {
        self.kind = kind
        self.environment = environment
        self.size = size
        self.activity = activity
        self.channel = channel
    }
}
