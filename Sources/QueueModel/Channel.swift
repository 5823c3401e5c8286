import APNs
import Foundation

/// A broadcast channel as the local table keeps it (`channels`, SCHEMA.md): the id APNs gave it, the app and
/// environment it belongs to, its storage policy, the credential that made it, and when it was deleted (the row
/// stays for the log). A broadcast delivery names a channel by its local `id`.
public struct Channel: Hashable, Sendable {
    /// The local number (`channel show 3`), never reused.
    public var id: Int64
    /// The id APNs gave it (base64, as given; no length assumed).
    public var channelID: String
    /// The app's bundle id (no `.push-type.` suffix).
    public var topic: String
    public var environment: Environment
    public var storage: ChannelStorage
    /// The name of the credential that created it (`apns.credentials`; `default` for the single key).
    public var credential: String
    public var createdAt: Date
    /// When `channel delete` deleted it at APNs; nil while it exists.
    public var deletedAt: Date?

    public init(
        id: Int64, channelID: String, topic: String, environment: Environment, storage: ChannelStorage,
        credential: String, createdAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.channelID = channelID
        self.topic = topic
        self.environment = environment
        self.storage = storage
        self.credential = credential
        self.createdAt = createdAt
        self.deletedAt = deletedAt
    }

    /// Whether it was deleted.
    public var isDeleted: Bool { deletedAt != nil }
}

/// How `channel show ID` / `channel delete ID` name a channel: its local number or the id APNs gave it.
public enum ChannelReference: Hashable, Sendable, CustomStringConvertible {
    case local(Int64)
    case apns(String)

    /// Digits only (at most 18) name the local number; anything else is an APNs id. A lookup by number that finds
    /// nothing tries the text as an APNs id too (`ChannelStore.channel(_:)`), as a base64 id may be all digits.
    public init(_ text: String) {
        if !text.isEmpty, text.utf8.count <= 18,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let number = Int64(text)
        {
            self = .local(number)
        } else {
            self = .apns(text)
        }
    }

    public var description: String {
        switch self {
        case .local(let id): return "\(id)"
        case .apns(let id): return id
        }
    }
}
