import APNs
import Foundation
import Intake
import QueueModel

/// The members a notification and a campaign share (payload and APNs headers), read from a JSON body into
/// Intake's `NotificationInput`, so the API and the CLI validate them the same way.
enum NotificationFields {
    /// The most tokens or users one request may name.
    static let maximumRecipients = 10_000

    /// Validates the plan once (Intake's `EnqueuePlan`, as the CLI does), naming the member a refusal is about;
    /// `audienceMember` names the audience in a notification (`token`, `users`…), `audience` in a campaign.
    static func validate(
        _ plan: EnqueuePlan, _ body: JSONBody, defaultTopic: String?, routes: TopicRoutes?, audienceMember: String,
        now: Date = Date()
    ) throws(APIError) -> CampaignSpec {
        do {
            return try plan.validate(defaultTopic: defaultTopic, routes: routes, now: now)
        } catch {
            let field: String =
                switch error.field {
                case .notification(let field): body.path + field.rawValue
                case .audience: audienceMember
                case .audienceKind: "audience.kind"
                case .activityType: "audience.activityType"
                case .at: "at"
                }
            throw .invalid(error.field == .at ? "at: \(error.message)" : error.message, field: field)
        }
    }

    /// The shared members as given, not yet validated.
    static func input(_ body: inout JSONBody) throws(APIError) -> NotificationInput {
        NotificationInput(
            topic: try body.string("topic"), pushType: try body.string("pushType"),
            priority: try body.integer("priority").map(Int.init), expiration: try body.integer("expiration"),
            collapseID: try body.string("collapseId"), apnsID: try body.string("apnsId"),
            environment: try body.string("environment"),
            payload: try body.rawObject("payload"))
    }

    /// The members that name a notification's audience: exactly one of them is given.
    private static let audienceMembers: [StaticString] = ["token", "tokens", "user", "users"]

    /// `POST /v1/notifications`' object (one item of a batch): exactly one of token, tokens, user, users. `now` is
    /// when it is checked against (a Live Activity's timestamp): the same `now` gives the same answer every time.
    static func notification(
        _ body: inout JSONBody, defaultTopic: String?, routes: TopicRoutes?, now: Date = Date()
    ) throws(APIError) -> CampaignSpec {
        var givenCount = 0
        for name in audienceMembers where body.has(name) { givenCount += 1 }
        guard givenCount == 1 else {
            let given = audienceMembers.filter { body.has($0) }.map(\.description)
            throw .invalid(
                given.isEmpty
                    ? "give one of token, tokens, user, users" : "give only one of \(given.joined(separator: ", "))",
                field: given.count > 1 ? given[1] : "token")
        }
        let fields = try input(&body)
        let audience: Audience
        if let token = try body.stringNode("token") {
            audience = .tokens([try Self.token(body.tree, token, field: "token")])
        } else if let tokens = try body.stringNodes("tokens", maximum: maximumRecipients) {
            var parsed: [DeviceToken] = []
            parsed.reserveCapacity(tokens.count)
            for (i, token) in tokens.enumerated() {
                parsed.append(try Self.token(body.tree, token, field: "tokens", index: i))
            }
            audience = .tokens(parsed)
        } else {
            if fields.environment != nil {
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
        let given = audienceMembers.first { body.has($0) }?.description ?? "token"
        return try validate(
            EnqueuePlan(kind: .single, fields: fields, audience: audience), body, defaultTopic: defaultTopic,
            routes: routes, audienceMember: given, now: now)
    }

    /// `POST /v1/campaigns`' object, and whether it asks for a dry run (`dryRun`).
    static func campaign(_ body: inout JSONBody, defaultTopic: String?, routes: TopicRoutes?) throws(APIError)
        -> (spec: CampaignSpec, dryRun: Bool)
    {
        let fields = try input(&body)
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
            audience = .activities(type: type, kind: kind, users: users)
        } else if let all = try audienceBody.bool("all") {
            guard all else { throw .invalid("audience.all must be true", field: "audience.all") }
            audience = .all()
        } else if let users = try audienceBody.strings("users", maximum: Int.max) {
            for user in users {
                _ = try Self.user(user, field: "audience.users")
            }
            audience = .users(users)
        } else {
            // Straight from the body's bytes, as a notification's tokens: no `String` per token on the way (a
            // campaign of a million inline tokens would hold a million of them besides the tokens themselves).
            let tokens = try audienceBody.stringNodes("tokens", maximum: Int.max) ?? []
            var parsed: [DeviceToken] = []
            parsed.reserveCapacity(tokens.count)
            for (i, token) in tokens.enumerated() {
                parsed.append(try Self.token(audienceBody.tree, token, field: "audience.tokens", index: i))
            }
            audience = .tokens(parsed)
        }
        try audienceBody.finish()
        var at: Date?
        if let text = try body.string("at") {
            do { at = try EnqueuePlan.time(text) } catch { throw .invalid("at: \(error)", field: "at") }
        }
        let dryRun = try body.bool("dryRun") ?? false
        try body.finish()
        let spec = try validate(
            EnqueuePlan(kind: .bulk, fields: fields, audience: audience, scheduledAt: at), body,
            defaultTopic: defaultTopic, routes: routes, audienceMember: "audience")
        return (spec, dryRun)
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
