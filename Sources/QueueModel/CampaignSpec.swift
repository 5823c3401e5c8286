import APNs
import Foundation

/// Everything a producer gives to create a campaign (`apnsd campaign create`) or a single send (`apnsd send`).
public struct CampaignSpec: Hashable, Sendable {
    public var kind: CampaignKind
    public var audience: Audience
    /// What is sent to every device of the audience (validated when it was made). A Live Activity content given
    /// with the topic `<bundle id>.push-type.liveactivity` is kept with the bare bundle id (the `apns-topic` header
    /// is the same): devices, Live Activity tokens included, are registered and matched under the bundle id.
    public var content: NotificationContent {
        didSet { content = Self.registryContent(content) }
    }
    /// nil: now. Nothing of the campaign is expanded or sent before this time.
    public var scheduledAt: Date?

    public init(kind: CampaignKind = .bulk, audience: Audience, content: NotificationContent, scheduledAt: Date? = nil)
    {
        self.kind = kind
        self.audience = audience
        self.content = Self.registryContent(content)
        self.scheduledAt = scheduledAt
    }

    /// `content` with its bundle id as the registry knows it: a Live Activity topic's suffix dropped.
    static func registryContent(_ content: NotificationContent) -> NotificationContent {
        guard content.pushType == .liveactivity, let suffix = PushType.liveactivity.topicSuffix,
            content.bundleID.hasSuffix(suffix), content.bundleID.count > suffix.count
        else { return content }
        return NotificationContent(
            trusted: String(content.bundleID.dropLast(suffix.count)), pushType: content.pushType,
            priority: content.priority, expiration: content.expiration, collapseID: content.collapseID,
            apnsID: content.apnsID, payload: content.payload)
    }

    /// A single send to one token.
    public static func single(to token: DeviceToken, environment: Environment? = nil, content: NotificationContent)
        -> CampaignSpec
    {
        CampaignSpec(kind: .single, audience: .tokens([token], environment: environment), content: content)
    }

    /// A rule of the spec's that it breaks: what the rule is about, and the one-line reason.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// What a producer must change.
        public enum Subject: Sendable, Equatable {
            case audience, pushType, activityKind, activityType
        }

        public var subject: Subject
        public var message: String
        public var description: String { message }
    }

    /// The first rule the content cannot check that the spec breaks, or nil: a single send goes to tokens or users;
    /// an activity audience names a valid activity type and a Live Activity kind of token; a broadcast is a single
    /// Live Activity send.
    public var refusal: Refusal? {
        if audience.channel != nil {
            guard kind == .single else {
                return Refusal(
                    subject: .audience,
                    message: "a broadcast is a single send (apnsd send --channel, POST /v1/broadcasts)")
            }
            guard content.pushType == .liveactivity else {
                return Refusal(
                    subject: .pushType,
                    message:
                        "a broadcast is a Live Activity update or end: push type liveactivity, not \(content.pushType)")
            }
        }
        if kind == .single, case .all = audience {
            return Refusal(
                subject: .audience,
                message: "a single send goes to tokens or users, not to all devices; create a bulk campaign")
        }
        if content.pushType == .liveactivity {
            switch audience {
            case .all, .users:
                // These reach kind `device` only, which a Live Activity push cannot update or start.
                return Refusal(
                    subject: .audience,
                    message:
                        "a liveactivity push goes to Live Activity tokens: give the activity type (--activity-type, audience.activityType) or the tokens"
                )
            default: break
            }
        }
        guard let activity = audience.activity else { return nil }
        if kind == .single {
            return Refusal(
                subject: .audience,
                message: "a single send goes to tokens or users; send to the activities of a type with a bulk campaign")
        }
        guard activity.kind.isLiveActivity else {
            return Refusal(
                subject: .activityKind,
                message: "an activity audience reaches activity or pushToStart tokens, not kind device")
        }
        guard content.pushType == .liveactivity else {
            return Refusal(
                subject: .pushType,
                message: "an activity audience takes push type liveactivity, got \(content.pushType)")
        }
        do { try DeviceRegistration.validateActivityType(activity.type) } catch .invalidDevice(let why) {
            return Refusal(subject: .activityType, message: why)
        } catch {
            return Refusal(subject: .activityType, message: "\(error)")
        }
        return nil
    }

    /// Whether no rule refuses it: what a store asserts of every spec it is given (Intake's `EnqueuePlan` refused
    /// the others before they reached it).
    public var isValid: Bool { refusal == nil }
}
