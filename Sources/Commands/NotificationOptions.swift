import APNs
import Foundation
import Intake
import ProviderAuth
import QueueModel

/// The options `send` and `campaign create` share: payload and APNs headers, validated with the audience by Intake's
/// `EnqueuePlan` (as the HTTP API's are) before anything is written.
struct NotificationOptions {
    static let valued: Set<String> = Set(NotificationInput.Field.allCases.map { String($0.flag.dropFirst(2)) })

    /// The fields as given.
    var input: NotificationInput
    let defaultTopic: String?
    let routes: TopicRoutes?

    init(_ arguments: Arguments, configuration: Configuration) throws(CLIError) {
        try self.init(Self.input(arguments), configuration: configuration)
    }

    init(_ input: NotificationInput, configuration: Configuration) throws(CLIError) {
        self.input = input
        defaultTopic = configuration.topic
        do { routes = try configuration.topicRoutes() } catch { throw .usage(error.description) }
    }

    /// The notification's fields as given on the command line, the payload read (inline, `@FILE` or `@-`).
    static func input(_ arguments: Arguments) throws(CLIError) -> NotificationInput {
        guard let source = try arguments.value("payload") else {
            throw CLIError.usage("--payload is required (JSON text, or @FILE)")
        }
        return NotificationInput(
            topic: try arguments.value("topic"), pushType: try arguments.value("push-type"),
            priority: try arguments.value("priority").map { (text: String) throws(CLIError) in
                guard let value = Int(text) else { throw .usage("\(APNsError.invalidPriority(text))") }
                return value
            },
            expiration: try arguments.value("expiration").map { (text: String) throws(CLIError) in
                guard let value = Int64(text) else { throw .usage("\(APNsError.invalidExpiration(text))") }
                return value
            },
            collapseID: try arguments.value("collapse-id"),
            apnsID: try arguments.value("apns-id"), environment: try arguments.value("environment"),
            payload: try Self.read(source))
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
            bytes = BoundedRead.read(Invocation.current.standardInput, limit: maximumPayloadRead)
        } else {
            do { bytes = try BoundedRead.file(path, limit: maximumPayloadRead) } catch {
                throw .usage("payload file: \(error)")
            }
        }
        guard let bytes else {
            throw .usage(
                "payload \(path == "-" ? "on stdin" : path) is larger than \(maximumPayloadRead) bytes; APNs allows 4096 (5120 for VoIP)"
            )
        }
        return bytes
    }

    /// The spec of a `kind` send to `audience`, validated once (`EnqueuePlan`): the fields, the audience's rules
    /// (said as `--activity-type: …` for an activity audience) and the topic's credential. The time is left to
    /// `CampaignCommands.enqueue`, which checks it after answering an idempotent rerun.
    func spec(kind: CampaignKind, audience: Audience, scheduledAt: Date? = nil) throws(CLIError) -> CampaignSpec {
        do {
            return try EnqueuePlan(kind: kind, fields: input, audience: audience, scheduledAt: scheduledAt)
                .validate(defaultTopic: defaultTopic, routes: routes, checkingTime: false)
        } catch  where error.field == .notification(.topic) && input.topic == nil && defaultTopic == nil {
            throw .usage("no topic: pass --topic BUNDLE_ID or set apns.topic")
        } catch  where error.rule != nil && audience.activity != nil {
            throw .usage("--activity-type: \(error)")
        } catch {
            throw .usage("\(error)")
        }
    }

    /// `--idempotency-key K`: scoped to the command line (one scope for every user of the CLI, apart from every API
    /// key's), with the hash of what this run would enqueue (`spec`,
    /// and `extra`, e.g. a tokens file's own hash), so a rerun of the same command replays and a different one is refused.
    static func idempotency(_ arguments: Arguments, spec: CampaignSpec, extra: String = "") throws(CLIError)
        -> IdempotencyKey?
    {
        guard let key = try arguments.value("idempotency-key") else { return nil }
        if let problem = IdempotencyKey.validate(key) { throw .usage("--idempotency-key: \(problem)") }
        let c = spec.content
        let audience: String
        switch spec.audience {
        case .tokens(let tokens, let environment):
            audience = "tokens \(environment?.rawValue ?? "-") " + tokens.map(\.hex).joined(separator: ",")
        case .users(let users, let environment):
            audience = "users \(environment?.rawValue ?? "-") " + users.joined(separator: "\u{0}")
        case .all(let environment): audience = "all \(environment?.rawValue ?? "-")"
        case .activities(let type, let kind, let users, let environment):
            audience =
                "activities \(type) \(kind) \(environment?.rawValue ?? "-") "
                + (users?.joined(separator: "\u{0}") ?? "*")
        case .channel(let id): audience = "channel \(id)"
        }
        let expiration: String = c.expiration.map { "\($0.secondsSince1970)" } ?? "-"
        let scheduledAt: String = spec.scheduledAt.map { "\($0.timeIntervalSince1970)" } ?? "now"
        let fields: [String] = [
            "\(spec.kind)", audience, c.bundleID, c.pushType.rawValue, "\(c.priority.rawValue)", expiration,
            c.collapseID?.value ?? "-", c.apnsID?.uuidString ?? "-", scheduledAt, extra,
        ]
        let request = Array(fields.joined(separator: "\n").utf8) + [0] + c.payload.bytes
        return IdempotencyKey(scope: .commandLine, key: key, requestHash: SHA256.hex(request))
    }
}
