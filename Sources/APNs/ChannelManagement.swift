import Foundation

/// Apple's broadcast channel management API (iOS 18; docs/APNS.md): its hosts, paths, bodies and the checks made
/// before a request is sent.
public enum ChannelManagement {
    /// Apple's channel management base URL for `environment` (other hosts and ports than pushes).
    public static func defaultBaseURL(_ environment: Environment) -> String {
        environment == .production
            ? "https://api-manage-broadcast.push.apple.com:2196"
            : "https://api-manage-broadcast.sandbox.push.apple.com:2195"
    }

    /// The one push type channels carry.
    public static let pushType = "LiveActivity"

    /// `/1/apps/<bundle>/channels`: create (POST), read (GET) and delete (DELETE), the last two with `apns-channel-id`.
    public static func channelsPath(bundleID: String) -> String { "/1/apps/\(bundleID)/channels" }

    /// `/1/apps/<bundle>/all-channels`: every channel id of the app in that environment (GET).
    public static func allChannelsPath(bundleID: String) -> String { "/1/apps/\(bundleID)/all-channels" }

    /// A create request's body.
    public static func createBody(_ storage: ChannelStorage) -> [UInt8] {
        Array("{\"message-storage-policy\":\(storage.messageStoragePolicy),\"push-type\":\"\(pushType)\"}".utf8)
    }

    /// Checks the bundle id a channel belongs to: a bundle id (`Topic.validate`) with no `.push-type.` suffix
    /// (APNs answers 400 TopicDisallowed for one).
    public static func validate(bundleID: String) throws(APNsError) {
        try Topic.validate(bundleID)
        if bundleID.contains(".push-type.") {
            throw .invalidChannel(
                "'\(Printable.escaped(String(bundleID.prefix(120))))' has a .push-type. suffix: broadcast channels belong to the app's bundle id itself (e.g. \(PushType.bundleID(ofTopic: bundleID)))"
            )
        }
    }

    /// Checks a channel id as APNs gave it: standard base64 (no length assumed), at most 256 characters.
    public static func validate(channelID: String) throws(APNsError) {
        let bytes = Array(channelID.utf8)
        let shown = "'\(Printable.escaped(String(channelID.prefix(60))))'"
        guard !bytes.isEmpty else { throw .invalidChannel("a channel id is empty") }
        guard bytes.count <= maximumChannelIDBytes else {
            throw .invalidChannel("channel id \(shown)… is \(bytes.count) characters; at most \(maximumChannelIDBytes)")
        }
        var padding = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"):
                guard padding == 0 else {
                    throw .invalidChannel("channel id \(shown) is not base64 ('=' only at the end)")
                }
            case UInt8(ascii: "="):
                padding += 1
            default:
                throw .invalidChannel(
                    "channel id \(shown) is not base64 (as APNs gives it: letters, digits, '+', '/', '=')")
            }
        }
        guard padding <= 2 else { throw .invalidChannel("channel id \(shown) is not base64 (more than two '=')") }
    }

    /// Longer channel ids are refused (APNs's are 24 characters today; no length is assumed below this bound).
    public static let maximumChannelIDBytes = 256

    /// The storage policy of a read's body (`{"message-storage-policy": n, "push-type": "LiveActivity"}`), nil
    /// when the body is not that.
    public static func storage(ofReadBody body: [UInt8]) -> ChannelStorage? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let number = object["message-storage-policy"] as? NSNumber
        else { return nil }
        return ChannelStorage(messageStoragePolicy: number.intValue)
    }

    /// The channel ids of a list's body (`{"channels": ["<base64>", …]}`), nil when the body is not that.
    public static func channelIDs(ofListBody body: [UInt8]) -> [String]? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return nil }
        guard let ids = object["channels"] else { return [] }
        return ids as? [String]
    }
}
