import APNs
import Foundation

/// Everything a producer gives to create a campaign (`apnsd campaign create`) or a single send (`apnsd send`).
public struct CampaignSpec: Hashable, Sendable {
    public var kind: CampaignKind
    public var audience: Audience
    /// What is sent to every device of the audience (validated when it was made).
    public var content: NotificationContent
    /// nil: now. Nothing of the campaign is expanded or sent before this time.
    public var scheduledAt: Date?

    public init(kind: CampaignKind = .bulk, audience: Audience, content: NotificationContent, scheduledAt: Date? = nil) {
        self.kind = kind
        self.audience = audience
        self.content = content
        self.scheduledAt = scheduledAt
    }

    /// A single send to one token.
    public static func single(to token: DeviceToken, environment: Environment? = nil, content: NotificationContent) -> CampaignSpec {
        CampaignSpec(kind: .single, audience: .tokens([token], environment: environment), content: content)
    }

    /// Checks the rule the content cannot: a single send goes to tokens or users.
    public func validate() throws(StoreError) {
        if kind == .single, case .all = audience {
            throw .invalidCampaign("a single send goes to tokens or users, not to all devices; create a bulk campaign")
        }
    }
}
