/// A notification or one of its parts breaks a rule of Apple's provider API; the message says which and how to fix it.
public enum APNsError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidDeviceToken(String)
    case invalidTopic(String)
    case invalidPushType(String)
    case invalidPriority(String)
    case priorityNotAllowed(Priority, PushType)
    case invalidExpiration(String)
    case invalidNotificationID(String)
    case collapseIDEmpty
    case collapseIDTooLong(bytes: Int)
    case collapseIDNotPrintable(String)
    case payloadEmpty
    case payloadTooLarge(bytes: Int, limit: Int)
    case payloadNotJSONObject(String)
    case payloadMissingAps
    case payloadApsNotObject
    case invalidEnvironment(String)
    /// A liveactivity payload breaks ActivityKit's rules; the message names the `aps` member (`LiveActivityPayload`).
    case invalidLiveActivity(String)
    /// A broadcast channel request breaks a rule (a suffixed bundle id, a channel id that is not base64, a policy).
    case invalidChannel(String)

    public var description: String {
        switch self {
        case .invalidDeviceToken(let why):
            return "invalid device token: \(why) (expected an even number of hex characters, e.g. 64)"
        case .invalidTopic(let why):
            return "invalid topic: \(why)"
        case .invalidPushType(let value):
            return
                "unknown push type '\(value)' (expected one of: \(PushType.all.map(\.rawValue).joined(separator: ", ")))"
        case .invalidPriority(let value):
            return "invalid priority '\(value)' (expected 10, 5 or 1)"
        case .priorityNotAllowed(let priority, let pushType):
            let rule =
                pushType == .background ? "background pushes must use priority 5" : "Live Activity pushes use 10 or 5"
            return "priority \(priority.rawValue) is not allowed for push type \(pushType.rawValue) (\(rule))"
        case .invalidExpiration(let value):
            return "invalid expiration '\(value)' (expected UNIX seconds, 0 = deliver once or never)"
        case .invalidNotificationID(let value):
            return "invalid apns-id '\(value)' (expected a canonical UUID such as 123e4567-e89b-12d3-a456-426614174000)"
        case .collapseIDEmpty:
            return "collapse id is empty; leave it out instead"
        case .collapseIDTooLong(let bytes):
            return "collapse id is \(bytes) bytes; APNs allows at most \(CollapseID.maximumBytes)"
        case .collapseIDNotPrintable(let shown):
            return "collapse id '\(shown)' contains a control character; use printable text"
        case .payloadEmpty:
            return "payload is empty; send a JSON object with an \"aps\" dictionary"
        case .payloadTooLarge(let bytes, let limit):
            return "payload is \(bytes) bytes; the limit for this push type is \(limit) bytes"
        case .payloadNotJSONObject(let why):
            return "payload is not a JSON object: \(why)"
        case .payloadMissingAps:
            return "payload has no \"aps\" dictionary; put Apple's keys under \"aps\""
        case .payloadApsNotObject:
            return "payload's \"aps\" is not an object; Apple's keys go in a dictionary: {\"aps\":{\"alert\":\"…\"}}"
        case .invalidEnvironment(let value):
            return "unknown environment '\(value)' (expected production or development)"
        case .invalidLiveActivity(let why):
            return why
        case .invalidChannel(let why):
            return why
        }
    }
}
