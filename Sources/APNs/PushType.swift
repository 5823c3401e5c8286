/// The `apns-push-type` header: what kind of notification this is, which fixes the topic suffix.
public struct PushType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts only push types Apple defines.
    public init?(rawValue: String) {
        guard Self.all.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(known: String) { rawValue = known }

    public static let alert = PushType(known: "alert")
    public static let background = PushType(known: "background")
    public static let location = PushType(known: "location")
    public static let voip = PushType(known: "voip")
    public static let complication = PushType(known: "complication")
    public static let fileprovider = PushType(known: "fileprovider")
    public static let mdm = PushType(known: "mdm")
    public static let liveactivity = PushType(known: "liveactivity")
    public static let pushtotalk = PushType(known: "pushtotalk")
    public static let controls = PushType(known: "controls")
    public static let widgets = PushType(known: "widgets")

    /// Every push type Apple defines.
    public static let all: [PushType] = [
        .alert, .background, .location, .voip, .complication, .fileprovider,
        .mdm, .liveactivity, .pushtotalk, .controls, .widgets,
    ]

    /// Parses a push type, with an error listing the valid ones.
    public static func parse(_ string: String) throws(APNsError) -> PushType {
        guard let type = PushType(rawValue: string.lowercased()) else { throw .invalidPushType(string) }
        return type
    }

    /// The suffix APNs requires on the bundle id for this push type, if any.
    public var topicSuffix: String? {
        switch rawValue {
        case "voip": return ".voip"
        case "complication": return ".complication"
        case "fileprovider": return ".pushkit.fileprovider"
        case "liveactivity": return ".push-type.liveactivity"
        case "location": return ".location-query"
        case "pushtotalk": return ".voip-ptt"
        case "controls": return ".push-type.controls"
        case "widgets": return ".push-type.widgets"
        default: return nil
        }
    }

    /// The topic for `bundleID`: the bundle id with this push type's suffix, unless it already has it.
    public func topic(forBundleID bundleID: String) -> String {
        guard let suffix = topicSuffix, !bundleID.hasSuffix(suffix) else { return bundleID }
        return bundleID + suffix
    }

    /// The app's bundle id in `topic`: `topic` without a push type's suffix (`com.example.app.voip` →
    /// `com.example.app`); a topic without one is returned as it is.
    public static func bundleID(ofTopic topic: String) -> Substring {
        for type in all {
            guard let suffix = type.topicSuffix, topic.hasSuffix(suffix), topic.utf8.count > suffix.utf8.count else {
                continue
            }
            return topic.dropLast(suffix.count)
        }
        return topic[...]
    }

    /// Refuses a bundle id that already carries a `.push-type.` suffix other than this push type's own (a widgets
    /// topic sent as liveactivity, a liveactivity topic sent as alert, a miscased `.push-type.liveActivity`):
    /// `topic(forBundleID:)` would add a second suffix, and APNs would refuse the topic. `bundleID` has passed
    /// `Topic.validate` (ASCII only).
    public func validate(bundleID: String) throws(APNsError) {
        let bytes = Array(bundleID.utf8)
        let marker = Array(".push-type.".utf8)
        guard bytes.count > marker.count,
            let start = (0...(bytes.count - marker.count)).first(where: { at in
                zip(bytes[at..<(at + marker.count)], marker).allSatisfy { $0 | 0x20 == $1 | 0x20 }
            })
        else { return }
        let base = String(decoding: bytes[..<start], as: UTF8.self)
        let carried = String(decoding: bytes[start...], as: UTF8.self)
        if carried == topicSuffix { return }
        var advice = "give the bundle id \(base)"
        if let suffix = topicSuffix { advice += " (apnsd sends a \(rawValue) push to \(base + suffix))" }
        if let other = Self.all.first(where: { $0.topicSuffix == carried }) {
            advice += ", or send it as push type \(other)"
        }
        throw .invalidTopic(
            "'\(bundleID)' carries the suffix '\(carried)', which is not for push type \(rawValue); \(advice)")
    }

    /// Whether `topic` carries the suffix this push type requires (mdm topics are free-form).
    public func accepts(topic: String) -> Bool {
        guard let suffix = topicSuffix else { return true }
        return topic.hasSuffix(suffix)
    }

    /// The payload limit in bytes: 5120 for VoIP, 4096 for everything else.
    public var payloadLimit: Int { self == .voip ? 5120 : 4096 }

    /// A broadcast's payload limit (Live Activity updates and ends on a channel).
    public static let broadcastPayloadLimit = 5120

    /// `apns-push-type` on a broadcast: Apple spells it `LiveActivity` there.
    public static let broadcastValue = "LiveActivity"

    /// The priority to use when none is given: background pushes must use 5.
    public var defaultPriority: Priority { self == .background ? .conservePower : .immediate }

    public var description: String { rawValue }
}
