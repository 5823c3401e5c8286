import APNs
import Foundation
import Store

/// The options `send` and `campaign create` share: payload and APNs headers, validated before anything is written.
struct NotificationOptions {
    static let valued: Set<String> = ["payload", "topic", "push-type", "priority", "expiration", "collapse-id", "environment"]

    var payload: Payload
    var topic: String
    var pushType: PushType
    var priority: Priority?
    var expiration: Expiration?
    var collapseID: CollapseID?
    var environment: Environment?

    init(_ arguments: Arguments, configuration: Configuration) throws(CLIError) {
        do {
            pushType = try arguments.value("push-type").map(PushType.parse) ?? .alert
            priority = try arguments.value("priority").map(Priority.parse)
            try priority?.validate(for: pushType)
            expiration = try arguments.value("expiration").map(Expiration.parse)
            collapseID = try arguments.value("collapse-id").map(CollapseID.init)
            environment = try arguments.value("environment").map(Environment.parse)
            guard let source = try arguments.value("payload") else { throw CLIError.usage("--payload is required (JSON text, or @FILE)") }
            payload = try Payload(bytes: try Self.read(source), pushType: pushType)
        } catch let error as APNsError {
            throw .usage("\(error)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw .usage("\(error)")
        }
        guard let topic = try arguments.value("topic") ?? configuration.topic else {
            throw .usage("no topic: pass --topic BUNDLE_ID or set apns.topic")
        }
        guard !topic.isEmpty, !topic.contains(where: { $0.isWhitespace }) else { throw .usage("topic '\(topic)' is not a bundle id") }
        self.topic = topic
    }

    /// The payload bytes from inline JSON or `@FILE` (`@-` reads stdin).
    private static func read(_ source: String) throws(CLIError) -> [UInt8] {
        guard source.hasPrefix("@") else { return Array(source.utf8) }
        let path = String(source.dropFirst())
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .usage("cannot read payload file \(path)") }
        return Array(data)
    }

    func spec(kind: CampaignKind, audience: Audience, scheduledAt: Date? = nil) -> CampaignSpec {
        CampaignSpec(kind: kind, audience: audience, payload: payload, topic: topic, pushType: pushType,
                     priority: priority, expiration: expiration, collapseID: collapseID, scheduledAt: scheduledAt)
    }
}
