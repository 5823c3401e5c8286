/// A broadcast channel's message storage policy (`message-storage-policy`), fixed when the channel is made.
public enum ChannelStorage: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Policy 0: APNs stores no message (a larger publishing budget; broadcasts need `apns-expiration` 0).
    case none
    /// Policy 1: APNs stores the most recent message (up to 8 hours, less with `apns-expiration`).
    case latest

    /// The number APNs sends and takes.
    public var messageStoragePolicy: Int { self == .none ? 0 : 1 }

    /// The policy APNs numbers `policy`, nil for any other number.
    public init?(messageStoragePolicy policy: Int) {
        switch policy {
        case 0: self = .none
        case 1: self = .latest
        default: return nil
        }
    }

    /// Parses `none` or `latest` (as `--storage` and the API's `storage` take them).
    public static func parse(_ text: String) throws(APNsError) -> ChannelStorage {
        guard let storage = ChannelStorage(rawValue: text) else {
            throw .invalidChannel("storage '\(Printable.escaped(String(text.prefix(40))))' is not none or latest")
        }
        return storage
    }

    public var description: String { rawValue }
}
