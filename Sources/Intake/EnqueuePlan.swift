import APNs
import Foundation
import QueueModel

/// A notification or campaign as a producer asked for it — its fields (typed), its audience, when — validated in
/// one place for the CLI and the HTTP API: the content's rules, the audience's (`CampaignSpec.refusal`) and the
/// topic's route to a credential. The result is a spec the stores take as it is.
public struct EnqueuePlan: Sendable {
    /// The field or member a refusal names.
    public enum Field: Sendable, Equatable {
        /// One of the notification's own fields.
        case notification(NotificationInput.Field)
        /// Who it goes to (tokens, users, all), or the activity audience's kind of token or type.
        case audience, audienceKind, activityType
        /// When it is sent (`--at`, `at`).
        case at
    }

    /// Why the plan is refused, naming its field.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var field: Field
        public var message: String
        /// The audience rule broken (`CampaignSpec.refusal`), or nil for a rule of a field's own.
        public var rule: CampaignSpec.Refusal.Subject?
        public var description: String { message }
    }

    public var kind: CampaignKind
    public var fields: NotificationInput
    /// Who it goes to; its environment is the one `fields` gives, set when the plan is validated.
    public var audience: Audience
    /// nil: now.
    public var scheduledAt: Date?

    public init(kind: CampaignKind, fields: NotificationInput, audience: Audience, scheduledAt: Date? = nil) {
        self.kind = kind
        self.fields = fields
        self.audience = audience
        self.scheduledAt = scheduledAt
    }

    /// How far in the past an `at` may be and still mean now (a producer's clock a little behind ours, a request
    /// that took a while); an older one is a mistake (last year's date, a copied example), not a send at once.
    public static let pastTolerance: TimeInterval = 300

    /// `at` as a producer writes it: `now` (nil: now), or an ISO 8601 time (`Timestamp`).
    public static func time(_ text: String) throws(IntakeError) -> Date? {
        text == "now" ? nil : try Timestamp.parse(text)
    }

    /// The refusal of `scheduledAt` at `now`: a time more than `pastTolerance` in the past.
    public static func timeRefusal(_ scheduledAt: Date?, now: Date) -> Failure? {
        guard let scheduledAt, scheduledAt < now.addingTimeInterval(-pastTolerance) else { return nil }
        let format = ISO8601DateFormatter()
        return Failure(
            field: .at,
            message:
                "\(format.string(from: scheduledAt)) is more than \(Int(pastTolerance) / 60) minutes in the past (it is \(format.string(from: now)) now): give a later time, or now",
            rule: nil)
    }

    /// The spec to enqueue, or the first rule broken: `defaultTopic` is `apns.topic`, `routes` the credentials'
    /// topics (nil: no credential configured, so no topic is refused). `checkingTime` false leaves the time to
    /// `timeRefusal`, for a caller that answers an idempotent replay first.
    public func validate(defaultTopic: String?, routes: TopicRoutes?, now: Date = Date(), checkingTime: Bool = true)
        throws(Failure) -> CampaignSpec
    {
        let content: NotificationContent
        let environment: Environment?
        do { (content, environment) = try fields.validate(defaultTopic: defaultTopic, now: now) } catch {
            throw Failure(field: .notification(error.field), message: error.message, rule: nil)
        }
        let spec = CampaignSpec(
            kind: kind, audience: audience.with(environment: environment), content: content, scheduledAt: scheduledAt)
        if let refusal = spec.refusal {
            let field: Field =
                switch refusal.subject {
                case .audience: .audience
                case .pushType: .notification(.pushType)
                case .activityKind: .audienceKind
                case .activityType: .activityType
                }
            throw Failure(field: field, message: refusal.message, rule: refusal.subject)
        }
        if let refusal = routes?.refusal(for: content.bundleID, pushType: content.pushType) {
            throw Failure(field: .notification(.topic), message: refusal, rule: nil)
        }
        if checkingTime, let refusal = Self.timeRefusal(scheduledAt, now: now) { throw refusal }
        return spec
    }
}

extension Audience {
    /// The same audience with its environment set (a channel has none: it is the channel's).
    func with(environment: Environment?) -> Audience {
        switch self {
        case .tokens(let tokens, _): .tokens(tokens, environment: environment)
        case .users(let users, _): .users(users, environment: environment)
        case .all: .all(environment: environment)
        case .activities(let type, let kind, let users, _):
            .activities(type: type, kind: kind, users: users, environment: environment)
        case .channel: self
        }
    }
}
