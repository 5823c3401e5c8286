/// A notification without its device: what a campaign sends to every device of its audience. Validated once,
/// when it is made (bundle id, priority allowed for the push type, payload within the push type's limit), and
/// the one place APNs headers are built.
public struct NotificationContent: Hashable, Sendable {
    /// The app's bundle id; `topic` adds the push type's suffix (`.voip`, …).
    public var bundleID: String { storage.bundleID }
    public var pushType: PushType { storage.pushType }
    /// The priority sent (the push type's default when none was given).
    public var priority: Priority { storage.priority }
    public var expiration: Expiration? { storage.expiration }
    public var collapseID: CollapseID? { storage.collapseID }
    /// The `apns-id` the producer chose (sent with every delivery of this content); nil: APNs assigns one.
    public var apnsID: NotificationID? { storage.apnsID }
    public var payload: Payload { storage.payload }

    /// The parts, in one shared object: every delivery of a campaign carries its content, and a copy of the content
    /// is then one reference, not one per part.
    private let storage: Storage

    private final class Storage: Sendable {
        let bundleID: String
        let pushType: PushType
        let priority: Priority
        let expiration: Expiration?
        let collapseID: CollapseID?
        let apnsID: NotificationID?
        let payload: Payload
        /// `headers`, built once: every delivery of a campaign sends them.
        let headers: [(name: String, value: String)]

        init(
            bundleID: String, pushType: PushType, priority: Priority, expiration: Expiration?,
            collapseID: CollapseID?, apnsID: NotificationID?, payload: Payload
        ) {
            self.bundleID = bundleID
            self.pushType = pushType
            self.priority = priority
            self.expiration = expiration
            self.collapseID = collapseID
            self.apnsID = apnsID
            self.payload = payload
            var headers: [(name: String, value: String)] = [
                (HeaderName.topic, pushType.topic(forBundleID: bundleID)),
                (HeaderName.pushType, pushType.rawValue),
                (HeaderName.priority, String(priority.rawValue)),
            ]
            if let expiration { headers.append((HeaderName.expiration, String(expiration.secondsSince1970))) }
            if let collapseID { headers.append((HeaderName.collapseID, collapseID.value)) }
            if let apnsID { headers.append((HeaderName.id, apnsID.uuidString)) }
            self.headers = headers
        }
    }

    /// Checks the rules that tie the parts together; `priority` nil means the push type's default.
    public init(
        bundleID: String, pushType: PushType = .alert, priority: Priority? = nil, expiration: Expiration? = nil,
        collapseID: CollapseID? = nil, apnsID: NotificationID? = nil, payload: Payload
    ) throws(APNsError) {
        try Topic.validate(bundleID)
        try pushType.validate(bundleID: bundleID)
        let priority = priority ?? pushType.defaultPriority
        try priority.validate(for: pushType)
        try payload.validate(for: pushType)
        self.init(
            trusted: bundleID, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID,
            apnsID: apnsID, payload: payload)
    }

    /// Content read back from the queue, where it was validated when it was enqueued: not checked again, so a rule
    /// tightened since never strands what was accepted before it.
    public init(
        trusted bundleID: String, pushType: PushType, priority: Priority, expiration: Expiration?,
        collapseID: CollapseID?, apnsID: NotificationID? = nil, payload: Payload
    ) {
        storage = Storage(
            bundleID: bundleID, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID, payload: payload)
    }

    /// Equal when the parts are (the headers follow from them).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.bundleID == rhs.bundleID && lhs.pushType == rhs.pushType && lhs.priority == rhs.priority
                && lhs.expiration == rhs.expiration && lhs.collapseID == rhs.collapseID && lhs.apnsID == rhs.apnsID
                && lhs.payload == rhs.payload)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bundleID)
        hasher.combine(pushType)
        hasher.combine(priority)
        hasher.combine(expiration)
        hasher.combine(collapseID)
        hasher.combine(apnsID)
        hasher.combine(payload)
    }

    /// The `apns-topic` header: the bundle id with the push type's suffix.
    public var topic: String { pushType.topic(forBundleID: bundleID) }

    /// The APNs headers of this content, in order; without `authorization` (per request).
    public var headers: [(name: String, value: String)] { storage.headers }

    /// The path of a broadcast of this content (`POST /4/broadcasts/apps/<bundle id>`, no push-type suffix).
    public var broadcastPath: String { "/4/broadcasts/apps/" + bundleID }

    /// The headers of a broadcast of this content on the channel `channelID`: no topic (the bundle id is in the
    /// path), the push type as Apple spells it for broadcasts, and a chosen id as `apns-request-id`.
    public func broadcastHeaders(channelID: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            (HeaderName.channelID, channelID),
            (HeaderName.pushType, PushType.broadcastValue),
            (HeaderName.priority, String(priority.rawValue)),
        ]
        if let expiration { headers.append((HeaderName.expiration, String(expiration.secondsSince1970))) }
        if let apnsID { headers.append((HeaderName.requestID, apnsID.uuidString)) }
        return headers
    }
}

/// The request header names APNs reads, spelled once.
public enum HeaderName {
    public static let authorization = "authorization"
    public static let topic = "apns-topic"
    public static let pushType = "apns-push-type"
    public static let priority = "apns-priority"
    public static let expiration = "apns-expiration"
    public static let collapseID = "apns-collapse-id"
    public static let id = "apns-id"
    public static let channelID = "apns-channel-id"
    public static let requestID = "apns-request-id"

    /// The `authorization` value for a provider token (JWT).
    public static func bearer(_ jwt: String) -> String { "bearer " + jwt }
}
