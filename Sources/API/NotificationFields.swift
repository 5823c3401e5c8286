import APNs
import Foundation
import Intake
import QueueModel

/// The members a notification and a campaign share (payload and APNs headers), read from a JSON body into
/// Intake's `NotificationInput`, so the API and the CLI validate them the same way.
enum NotificationFields {
    /// The most tokens or users one request may name.
    static let maximumRecipients = 10_000

    /// Reads the shared members and validates them; `defaultTopic` is `apns.topic`.
    static func content(_ body: inout JSONBody, defaultTopic: String?) throws(APIError) -> (
        content: NotificationContent, environment: Environment?
    ) {
        let input = try input(&body)
        do {
            return try input.validate(defaultTopic: defaultTopic)
        } catch {
            throw .invalid(error.message, field: body.path + error.field.rawValue)
        }
    }

    /// The shared members as given, not yet validated.
    static func input(_ body: inout JSONBody) throws(APIError) -> NotificationInput {
        NotificationInput(
            topic: try body.string("topic"), pushType: try body.string("pushType"),
            priority: try body.integer("priority").map(String.init),
            expiration: try body.integer("expiration").map(String.init),
            collapseID: try body.string("collapseId"), apnsID: try body.string("apnsId"),
            environment: try body.string("environment"),
            payload: try body.rawObject("payload"))
    }

    /// The members that name a notification's audience: exactly one of them is given.
    private static let audienceMembers: [StaticString] = ["token", "tokens", "user", "users"]

    /// `POST /v1/notifications`' object (one item of a batch): exactly one of token, tokens, user, users.
    static func notification(_ body: inout JSONBody, defaultTopic: String?) throws(APIError) -> CampaignSpec {
        var givenCount = 0
        for name in audienceMembers where body.has(name) { givenCount += 1 }
        guard givenCount == 1 else {
            let given = audienceMembers.filter { body.has($0) }.map(\.description)
            throw .invalid(
                given.isEmpty
                    ? "give one of token, tokens, user, users" : "give only one of \(given.joined(separator: ", "))",
                field: given.count > 1 ? given[1] : "token")
        }
        let (content, environment) = try content(&body, defaultTopic: defaultTopic)
        let audience: Audience
        if let token = try body.stringNode("token") {
            audience = .tokens([try Self.token(body.tree, token, field: "token")], environment: environment)
        } else if let tokens = try body.stringNodes("tokens", maximum: maximumRecipients) {
            var parsed: [DeviceToken] = []
            parsed.reserveCapacity(tokens.count)
            for (i, token) in tokens.enumerated() {
                parsed.append(try Self.token(body.tree, token, field: "tokens", index: i))
            }
            audience = .tokens(parsed, environment: environment)
        } else {
            if environment != nil {
                throw .invalid("environment goes with token or tokens, not with users", field: "environment")
            }
            var users: [String] = []
            if let user = try body.string("user") {
                users = [user]
            } else {
                users = try body.strings("users", maximum: maximumRecipients) ?? []
            }
            for user in users {
                _ = try Self.user(user, field: body.has("user") ? "user" : "users")
            }
            audience = .users(users)
        }
        try body.finish()
        return CampaignSpec(kind: .single, audience: audience, content: content)
    }

    /// `POST /v1/campaigns`' object.
    static func campaign(_ body: inout JSONBody, defaultTopic: String?) throws(APIError) -> CampaignSpec {
        let (content, environment) = try content(&body, defaultTopic: defaultTopic)
        guard var audienceBody = try body.object("audience") else {
            throw .invalid("audience is required", field: "audience")
        }
        // An activity audience is `activityType` (with an optional `kind`), alone or with `users`.
        let isActivity = audienceBody.has("activityType")
        let given = ["all", "users", "tokens"].filter { audienceBody.has($0) }
        guard isActivity ? !audienceBody.has("all") && !audienceBody.has("tokens") : given.count == 1 else {
            throw .invalid(
                "audience takes exactly one of all, users, tokens, or activityType (with users if wanted)",
                field: "audience")
        }
        if !isActivity, audienceBody.has("kind") {
            throw .invalid("audience.kind goes with audience.activityType", field: "audience.kind")
        }
        let audience: Audience
        if isActivity {
            let type = try audienceBody.string("activityType") ?? ""
            let kind = try API.deviceKind(audienceBody.string("kind"), field: "audience.kind") ?? .activity
            let users = try audienceBody.strings("users", maximum: Int.max)
            for user in users ?? [] {
                _ = try Self.user(user, field: "audience.users")
            }
            audience = .activities(type: type, kind: kind, users: users, environment: environment)
            // The rules in `validate`'s order: the kind, the push type, the activity type.
            let field =
                !kind.isLiveActivity
                ? "audience.kind" : content.pushType != .liveactivity ? "pushType" : "audience.activityType"
            do {
                try CampaignSpec(kind: .bulk, audience: audience, content: content).validate()
            } catch .invalidCampaign(let why) {
                throw .invalid(why, field: field)
            } catch {
                throw .store(error)
            }
        } else if let all = try audienceBody.bool("all") {
            guard all else { throw .invalid("audience.all must be true", field: "audience.all") }
            audience = .all(environment: environment)
        } else if let users = try audienceBody.strings("users", maximum: Int.max) {
            for user in users {
                _ = try Self.user(user, field: "audience.users")
            }
            audience = .users(users, environment: environment)
        } else {
            let tokens = try audienceBody.strings("tokens", maximum: Int.max) ?? []
            var parsed: [DeviceToken] = []
            parsed.reserveCapacity(tokens.count)
            for (i, token) in tokens.enumerated() {
                parsed.append(try Self.token(token, field: "audience.tokens", index: i))
            }
            audience = .tokens(parsed, environment: environment)
        }
        try audienceBody.finish()
        var at: Date?
        if let text = try body.string("at") {
            do { at = try Timestamp.parse(text) } catch { throw .invalid("at: \(error)", field: "at") }
        }
        try body.finish()
        return CampaignSpec(kind: .bulk, audience: audience, content: content, scheduledAt: at)
    }

    /// A user id, refused with `field` named.
    static func user(_ text: String, field: String) throws(APIError) -> String {
        do { try UserID.validate(text) } catch { throw .invalid("\(error)", field: field) }
        return text
    }

    /// The token of a string node: straight from its bytes when they already spell a normalised token (most do).
    static func token(_ tree: JSONTree, _ node: Int, field: String, index: Int? = nil) throws(APIError) -> DeviceToken {
        if tree[node].isVerbatim, let token = DeviceToken(normalizedHex: tree.bytes[tree[node].range]) { return token }
        return try token(tree.string(node), field: field, index: index)
    }

    static func token(_ text: String, field: String, index: Int? = nil) throws(APIError) -> DeviceToken {
        do { return try DeviceToken(text) } catch {
            throw .invalid(index.map { "\(field)[\($0)]: \(error)" } ?? "\(error)", field: field)
        }
    }
}
