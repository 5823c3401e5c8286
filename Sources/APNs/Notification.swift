/// One push to one device: the content and the device token (and an `apns-id`, when the sender chooses one).
public struct Notification: Hashable, Sendable {
    public var token: DeviceToken
    public var content: NotificationContent
    public var id: NotificationID?

    public init(token: DeviceToken, content: NotificationContent, id: NotificationID? = nil) {
        self.token = token
        self.content = content
        self.id = id
    }

    /// Builds the content and checks the rules that tie its parts together.
    public init(
        token: DeviceToken, topic: String, pushType: PushType = .alert, priority: Priority? = nil,
        expiration: Expiration? = nil, id: NotificationID? = nil, collapseID: CollapseID? = nil, payload: Payload
    ) throws(APNsError) {
        self.init(
            token: token,
            content: try NotificationContent(
                bundleID: topic, pushType: pushType, priority: priority,
                expiration: expiration, collapseID: collapseID, payload: payload),
            id: id)
    }

    /// The request path.
    public var path: String { token.devicePath }

    /// The APNs headers for this notification, without `authorization`.
    public var headers: [(name: String, value: String)] {
        var headers = content.headers
        if let id {
            headers.removeAll { $0.name == HeaderName.id }
            headers.append((HeaderName.id, id.uuidString))
        }
        return headers
    }

    /// The `apns-topic` header (bundle id and the push type's suffix).
    public var topic: String { content.topic }
    public var payload: Payload { content.payload }
}
