import APNs
import Foundation
import Intake
import QueueModel

/// The options `send` and `campaign create` share: payload and APNs headers, validated before anything is written.
struct NotificationOptions {
    static let valued: Set<String> = ["payload", "topic", "push-type", "priority", "expiration", "collapse-id", "environment"]

    /// What is sent, validated once.
    var content: NotificationContent
    var environment: Environment?

    init(_ arguments: Arguments, configuration: Configuration) throws(CLIError) {
        let topic = try DeviceCommands.givenTopic(arguments, configuration)
        do {
            let pushType = try arguments.value("push-type").map(PushType.parse) ?? .alert
            let priority = try arguments.value("priority").map(Priority.parse)
            try priority?.validate(for: pushType)
            let expiration = try arguments.value("expiration").map(Expiration.parse)
            let collapseID = try arguments.value("collapse-id").map { (text: String) throws(APNsError) in try CollapseID(text) }
            environment = try arguments.value("environment").map(Environment.parse)
            guard let source = try arguments.value("payload") else { throw CLIError.usage("--payload is required (JSON text, or @FILE)") }
            let payload = try Payload(bytes: try Self.read(source), pushType: pushType)
            content = try NotificationContent(bundleID: topic, pushType: pushType, priority: priority, expiration: expiration,
                                              collapseID: collapseID, payload: payload)
        } catch let error as APNsError {
            throw .usage("\(error)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw .usage("\(error)")
        }
    }

    /// Payload files and stdin are read only this far: the largest payload (VoIP, 5120 bytes) and room for
    /// whitespace; anything longer is refused without being held in memory.
    static let maximumPayloadRead = 8 * 1024

    /// The payload bytes from inline JSON or `@FILE` (`@-` reads stdin).
    private static func read(_ source: String) throws(CLIError) -> [UInt8] {
        guard source.hasPrefix("@") else { return Array(source.utf8) }
        let path = String(source.dropFirst())
        let bytes: [UInt8]?
        if path == "-" {
            bytes = BoundedRead.read(FileHandle.standardInput, limit: maximumPayloadRead)
        } else {
            do { bytes = try BoundedRead.file(path, limit: maximumPayloadRead) } catch { throw .usage("payload file: \(error)") }
        }
        guard let bytes else {
            throw .usage("payload \(path == "-" ? "on stdin" : path) is larger than \(maximumPayloadRead) bytes; APNs allows 4096 (5120 for VoIP)")
        }
        return bytes
    }

    func spec(kind: CampaignKind, audience: Audience, scheduledAt: Date? = nil) -> CampaignSpec {
        CampaignSpec(kind: kind, audience: audience, content: content, scheduledAt: scheduledAt)
    }
}
