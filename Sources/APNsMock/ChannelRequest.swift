import APNs
import Foundation

/// A request to the broadcast paths (iOS 18 broadcast channels, docs/APNS.md): channel management
/// (`/1/apps/<bundle>/channels`, `/1/apps/<bundle>/all-channels`) or a broadcast send (`/4/broadcasts/apps/<bundle>`).
/// Kept by `RequestCheck` only for these paths, so a device push pays for none of it (a class: the push's
/// `RequestCheck` grows by one pointer, not by all of this).
///
/// Bounded like the rest of a request: the channel id and the bundle id are cut off at `idBytes` (longer is
/// refused), and the body is kept up to `bodyLimit` + 1 bytes (past that only its length counts).
final class ChannelRequest {
    /// What the request asks for, from its path and method.
    enum Operation: String {
        case create, read, delete, list, broadcast
    }

    /// The path's resource.
    enum Resource {
        case channels, allChannels, broadcast
    }

    /// A broadcast payload's limit (Apple: 5120 bytes); a create body gets the same.
    static let bodyLimit = 5120
    /// Longest channel id accepted: Apple's are about 24 base64 characters and "no assumption about their length"
    /// is the rule for clients, not for what a simulator keeps.
    static let idBytes = 256

    let resource: Resource
    let bundleID: String
    /// The apns-channel-id header as sent, when it was valid base64.
    var channelID: String?
    var sawChannelID = false
    /// The apns-request-id header, when it was a canonical UUID (echoed; a fresh one otherwise).
    var requestID: [UInt8]?
    var sawPushType = false
    /// apns-expiration's value, when given.
    var expiration: Int64?
    /// The first header problem, and what was wrong.
    var headerProblem: Reason?
    var example = ""
    /// The body, up to `bodyLimit + 1` bytes.
    var body: [UInt8] = []

    private static let managementPrefix = Array("/1/apps/".utf8)
    private static let broadcastPrefix = Array("/4/broadcasts/apps/".utf8)

    /// The request a broadcast-feature path stands for; nil when the path is none of them (then it is a bad path).
    init?(path: UnsafeBufferPointer<UInt8>) {
        let bytes = Array(path)
        let rest: ArraySlice<UInt8>
        let resource: Resource
        if bytes.starts(with: Self.managementPrefix) {
            let tail = bytes[Self.managementPrefix.count...]
            guard let slash = tail.firstIndex(of: UInt8(ascii: "/")) else { return nil }
            switch String(decoding: tail[(slash + 1)...], as: UTF8.self) {
            case "channels": resource = .channels
            case "all-channels": resource = .allChannels
            default: return nil
            }
            rest = tail[..<slash]
        } else if bytes.starts(with: Self.broadcastPrefix) {
            resource = .broadcast
            rest = bytes[Self.broadcastPrefix.count...]
        } else {
            return nil
        }
        guard !rest.isEmpty, rest.count <= Self.idBytes, rest.allSatisfy(Self.isBundleIDByte) else { return nil }
        self.resource = resource
        bundleID = String(decoding: rest, as: UTF8.self)
    }

    /// The operation `method` asks of this resource; nil when the resource does not take that method (405).
    func operation(method: RequestCheck.Method) -> Operation? {
        switch (resource, method) {
        case (.channels, .post): return .create
        case (.channels, .get): return .read
        case (.channels, .delete): return .delete
        case (.allChannels, .get): return .list
        case (.broadcast, .post): return .broadcast
        default: return nil
        }
    }

    /// The bundle id carries a push-type suffix (`.push-type.liveactivity`): broadcast APIs take the bare bundle id.
    var bundleIDHasPushTypeSuffix: Bool { bundleID.contains(".push-type.") }

    // MARK: Headers

    func channelIDHeader(_ value: UnsafeBufferPointer<UInt8>) {
        sawChannelID = true
        guard !value.isEmpty else { return fail(ChannelReason.missingChannelID, "empty apns-channel-id") }
        guard value.count <= Self.idBytes, let decoded = Data(base64Encoded: Data(value)), !decoded.isEmpty else {
            return fail(ChannelReason.badChannelID, Self.example(value))
        }
        channelID = String(decoding: value, as: UTF8.self)
    }

    func requestIDHeader(_ value: UnsafeBufferPointer<UInt8>) {
        if RequestCheck.isCanonicalUUID(value) {
            requestID = Array(value)
        } else {
            fail(.badMessageId, Self.example(value))
        }
    }

    /// apns-push-type on a broadcast: LiveActivity, in any case (Apple spells it so; clients send it lowercase too).
    func pushTypeHeader(_ value: UnsafeBufferPointer<UInt8>) {
        sawPushType = true
        if String(decoding: value, as: UTF8.self).lowercased() != "liveactivity" {
            fail(.invalidPushType, Self.example(value))
        }
    }

    func priorityHeader(_ value: UnsafeBufferPointer<UInt8>) {
        if !["10", "5", "1"].contains(String(decoding: value, as: UTF8.self)) {
            fail(.badPriority, Self.example(value))
        }
    }

    func expirationHeader(_ value: UnsafeBufferPointer<UInt8>) {
        guard !value.isEmpty, value.count <= 19, value.allSatisfy({ (0x30...0x39).contains($0) }),
            let seconds = Int64(String(decoding: value, as: UTF8.self))
        else {
            return fail(.badExpirationDate, Self.example(value))
        }
        expiration = seconds
    }

    func append(body chunk: UnsafeBufferPointer<UInt8>) {
        let room = Self.bodyLimit + 1 - body.count
        if room > 0 { body.append(contentsOf: chunk.prefix(room)) }
    }

    func fail(_ reason: Reason, _ example: String) {
        guard headerProblem == nil else { return }
        headerProblem = reason
        self.example = example
    }

    // MARK: The request's shape

    /// The APNs error for what the request itself carries (headers and body; authorization and the channels held
    /// aside), or nil. `bodyBytes` is the body's whole length.
    func shapeProblem(operation: Operation, bodyBytes: Int) -> (status: Int, reason: Reason)? {
        if let headerProblem { return (400, headerProblem) }
        switch operation {
        case .read, .delete:
            if channelID == nil { return missingChannelID() }
        case .list:
            break
        case .create:
            return createBodyProblem(bodyBytes: bodyBytes)
        case .broadcast:
            if channelID == nil { return missingChannelID() }
            if !sawPushType {
                example = "no apns-push-type"
                return (400, ChannelReason.missingPushType)
            }
            if bodyBytes == 0 { return (400, .payloadEmpty) }
            if bodyBytes > Self.bodyLimit {
                example = "\(bodyBytes) bytes for a broadcast"
                return (413, .payloadTooLarge)
            }
            if let why = Self.broadcastPayloadProblem(body) {
                example = why
                return (400, ChannelReason.badRequestPayload)
            }
        }
        return nil
    }

    private func missingChannelID() -> (status: Int, reason: Reason) {
        example = "no apns-channel-id"
        return (400, ChannelReason.missingChannelID)
    }

    /// The message storage policy a valid create body asks for (checked by `shapeProblem` first).
    var requestedPolicy: Int {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])
            .flatMap { ($0["message-storage-policy"] as? NSNumber)?.intValue } ?? 0
    }

    /// A create body: `{"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}` and nothing else.
    private func createBodyProblem(bodyBytes: Int) -> (status: Int, reason: Reason)? {
        if bodyBytes == 0 {
            example = "no body"
            return (400, ChannelReason.badRequestPayload)
        }
        if bodyBytes > Self.bodyLimit {
            example = "\(bodyBytes) bytes for a channel"
            return (413, .payloadTooLarge)
        }
        guard (try? JSONReader.read(body)) != nil,
            let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        else {
            example = "the body is not a JSON object"
            return (400, ChannelReason.badRequestPayload)
        }
        if let unknown = object.keys.sorted().first(where: { $0 != "message-storage-policy" && $0 != "push-type" }) {
            example = "unknown attribute '\(String(unknown.prefix(RequestCheck.exampleBytes)))'"
            return (400, ChannelReason.badRequestParams)
        }
        let policy = try? JSONDecoder().decode(PolicyMember.self, from: Data(body)).policy
        guard let policy, policy == 0 || policy == 1 else {
            example = "message-storage-policy must be 0 or 1"
            return (400, ChannelReason.badRequestPayload)
        }
        guard object["push-type"] != nil else {
            example = "no push-type"
            return (400, ChannelReason.missingPushType)
        }
        let pushType = (try? JSONDecoder().decode(PushTypeMember.self, from: Data(body)).pushType) ?? "not a string"
        guard pushType.lowercased() == "liveactivity" else {
            example = "push-type '\(String(pushType.prefix(RequestCheck.exampleBytes)))'"
            return (400, .invalidPushType)
        }
        return nil
    }

    /// Why a broadcast payload is not a Live Activity update or end, or nil: a JSON object whose `aps` is an object
    /// with `event` "update" or "end" (a broadcast can never start an activity). The rest of ActivityKit's rules is
    /// the sender's business, as for device pushes.
    static func broadcastPayloadProblem(_ body: [UInt8]) -> String? {
        guard (try? JSONReader.read(body)) != nil,
            let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        else {
            return "the payload is not a JSON object"
        }
        guard let aps = object["aps"] as? [String: Any] else { return "no aps object" }
        guard let event = aps["event"] as? String else { return "no aps.event" }
        guard event == "update" || event == "end" else {
            return "aps.event '\(String(event.prefix(RequestCheck.exampleBytes)))' (a broadcast updates or ends)"
        }
        return nil
    }

    /// JSONDecoder tells an integer from `true` and from a string, as JSONSerialization's NSNumber does not.
    private struct PolicyMember: Decodable {
        var policy: Int?

        enum CodingKeys: String, CodingKey { case policy = "message-storage-policy" }
    }

    private struct PushTypeMember: Decodable {
        var pushType: String

        enum CodingKeys: String, CodingKey { case pushType = "push-type" }
    }

    private static func example(_ value: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: value.prefix(RequestCheck.exampleBytes), as: UTF8.self)
    }

    private static func isBundleIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
