/// One push to one device: everything that goes into a `POST /3/device/<token>` request.
public struct Notification: Hashable, Sendable {
    public var token: DeviceToken
    public var topic: String
    public var pushType: PushType
    public var priority: Priority
    public var expiration: Expiration?
    public var id: NotificationID?
    public var collapseID: CollapseID?
    public var payload: Payload

    /// Builds a notification and checks the rules that tie its parts together.
    public init(
        token: DeviceToken, topic: String, pushType: PushType = .alert, priority: Priority? = nil,
        expiration: Expiration? = nil, id: NotificationID? = nil, collapseID: CollapseID? = nil, payload: Payload
    ) throws(APNsError) {
        try Topic.validate(topic)
        let topic = pushType.topic(forBundleID: topic)
        let priority = priority ?? pushType.defaultPriority
        try priority.validate(for: pushType)
        try payload.validate(for: pushType)
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.id = id
        self.collapseID = collapseID
        self.payload = payload
    }

    /// The request path.
    public var path: String { "/3/device/\(token.hex)" }

    /// The APNs headers for this notification, without `authorization`.
    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("apns-topic", topic),
            ("apns-push-type", pushType.rawValue),
            ("apns-priority", String(priority.rawValue)),
        ]
        if let expiration { headers.append(("apns-expiration", String(expiration.secondsSince1970))) }
        if let id { headers.append(("apns-id", id.uuidString)) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID.value)) }
        return headers
    }

    public static func == (lhs: Notification, rhs: Notification) -> Bool {
        lhs.token == rhs.token && lhs.topic == rhs.topic && lhs.pushType == rhs.pushType
            && lhs.priority == rhs.priority && lhs.expiration == rhs.expiration && lhs.id == rhs.id
            && lhs.collapseID == rhs.collapseID && lhs.payload == rhs.payload
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(token)
        hasher.combine(topic)
        hasher.combine(id)
    }
}
