import APNs
import Foundation

/// Everything a producer gives to create a campaign (`apnsd campaign create`) or a single send (`apnsd send`).
public struct CampaignSpec: Hashable, Sendable {
    public var kind: CampaignKind
    public var audience: Audience
    public var payload: Payload
    /// The app's bundle id; the push type's suffix (e.g. `.voip`) is added when the request is built.
    public var topic: String
    public var pushType: PushType
    /// nil: the push type's default (10, or 5 for background).
    public var priority: Priority?
    public var expiration: Expiration?
    public var collapseID: CollapseID?
    /// nil: now. Nothing of the campaign is expanded or sent before this time.
    public var scheduledAt: Date?

    public init(kind: CampaignKind = .bulk, audience: Audience, payload: Payload, topic: String,
                pushType: PushType = .alert, priority: Priority? = nil, expiration: Expiration? = nil,
                collapseID: CollapseID? = nil, scheduledAt: Date? = nil) {
        self.kind = kind
        self.audience = audience
        self.payload = payload
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.scheduledAt = scheduledAt
    }

    /// A single send to one token.
    public static func single(to token: DeviceToken, environment: Environment? = nil, payload: Payload, topic: String,
                              pushType: PushType = .alert, priority: Priority? = nil, expiration: Expiration? = nil,
                              collapseID: CollapseID? = nil) -> CampaignSpec {
        CampaignSpec(kind: .single, audience: .tokens([token], environment: environment), payload: payload, topic: topic,
                     pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID)
    }

    /// The priority sent: the given one or the push type's default.
    public var effectivePriority: Priority { priority ?? pushType.defaultPriority }

    /// Checks the rules that tie the parts together (priority and payload size for the push type, topic).
    func validate() throws(StoreError) {
        let trimmed = topic.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed == topic, !topic.contains("\n") else {
            throw .invalidCampaign("topic '\(topic)' is not a bundle id")
        }
        do {
            try effectivePriority.validate(for: pushType)
            try payload.validate(for: pushType)
        } catch {
            throw .invalidCampaign(error.description)
        }
        if kind == .single, case .all = audience {
            throw .invalidCampaign("a single send goes to tokens or users, not to all devices; create a bulk campaign")
        }
    }
}
