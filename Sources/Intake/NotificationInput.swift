import APNs
import Foundation

/// A notification's fields as a producer gave them (command-line flags or an API request's JSON members, typed:
/// priority and expiration are integers), validated in one place for both: the CLI's `send` / `campaign create`
/// and the HTTP API.
public struct NotificationInput: Sendable {
    /// One field of a notification, with its name in each way in.
    public enum Field: String, Sendable, CaseIterable {
        case topic, pushType, priority, expiration, collapseId, apnsId, environment, payload

        /// The command-line flag (`--push-type`).
        public var flag: String {
            "--"
                + rawValue.reduce(into: "") { name, character in
                    if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
                }
        }
    }

    /// A field that breaks a rule: which one, and the one-line reason.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var field: Field
        public var message: String
        public var description: String { message }
    }

    public var topic: String?
    public var pushType: String?
    public var priority: Int?
    /// Seconds since 1970; 0: try once.
    public var expiration: Int64?
    public var collapseID: String?
    public var apnsID: String?
    public var environment: String?
    /// The payload's JSON bytes, exactly as they will be sent.
    public var payload: [UInt8]?

    public init(
        topic: String? = nil, pushType: String? = nil, priority: Int? = nil, expiration: Int64? = nil,
        collapseID: String? = nil, apnsID: String? = nil, environment: String? = nil, payload: [UInt8]? = nil
    ) {
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.environment = environment
        self.payload = payload
    }

    /// The validated content and environment; `defaultTopic` (`apns.topic`) when no topic was given. A liveactivity
    /// payload is also held to ActivityKit's rules (`LiveActivityPayload`), its timestamp to `now`.
    public func validate(defaultTopic: String?, now: Date = Date()) throws(Failure) -> (
        content: NotificationContent, environment: Environment?
    ) {
        guard let topic = topic ?? defaultTopic else {
            throw Failure(field: .topic, message: "no topic: give one or set apns.topic")
        }
        let pushType = try check(.pushType) { () throws(APNsError) in try self.pushType.map(PushType.parse) ?? .alert }
        let priority = try check(.priority) { () throws(APNsError) in
            let priority = try self.priority.map(Priority.init(validating:))
            try priority?.validate(for: pushType)
            return priority
        }
        let expiration = try check(.expiration) { () throws(APNsError) in
            try self.expiration.map(Expiration.init(secondsSince1970:))
        }
        let collapseID = try check(.collapseId) { () throws(APNsError) in
            try self.collapseID.map { (text: String) throws(APNsError) in try CollapseID(text) }
        }
        let apnsID = try check(.apnsId) { () throws(APNsError) in
            try self.apnsID.map { (text: String) throws(APNsError) in try NotificationID(text) }
        }
        let environment = try check(.environment) { () throws(APNsError) in try self.environment.map(Environment.parse)
        }
        guard let bytes = payload else {
            throw Failure(field: .payload, message: "payload is required (a JSON object with \"aps\")")
        }
        let payload = try check(.payload) { () throws(APNsError) in
            let payload = try Payload(bytes: bytes, pushType: pushType)
            // APNs accepts a Live Activity push that breaks ActivityKit's rules and the device drops it: refused here.
            if pushType == .liveactivity {
                try LiveActivityPayload(payload: payload).checkTimestamp(now: Int64(now.timeIntervalSince1970))
            }
            return payload
        }
        // The content checks the topic (the parts above are checked already), once: its refusal names the topic.
        do {
            let content = try NotificationContent(
                bundleID: topic, pushType: pushType, priority: priority, expiration: expiration,
                collapseID: collapseID, apnsID: apnsID, payload: payload)
            return (content, environment)
        } catch {
            if case .invalidTopic = error { throw Failure(field: .topic, message: "\(error)") }
            throw Failure(field: .payload, message: "\(error)")
        }
    }

    func check<T>(_ field: Field, _ body: () throws(APNsError) -> T) throws(Failure) -> T {
        do { return try body() } catch { throw Failure(field: field, message: "\(error)") }
    }
}
