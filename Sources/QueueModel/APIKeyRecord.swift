import Foundation

/// An API key as stored and listed: never its secret (the store keeps only the secret's hash).
public struct APIKeyRecord: Hashable, Sendable {
    /// The row id: never reused, so it names this key alone, whatever its name (idempotency keys belong to it).
    public var id: Int64
    /// 1–64 characters of `A-Z a-z 0-9 . _ -` (`APIKeyRecord.validateName`); unique among live keys.
    public var name: String
    public var scopes: Set<APIKeyScope>
    public var createdAt: Date
    /// When a request last authenticated with it (updated at most once a minute); nil when never used.
    public var lastUsedAt: Date?

    public init(id: Int64, name: String, scopes: Set<APIKeyScope>, createdAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.scopes = scopes
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// The scopes in their canonical order (send, read, admin).
    public var sortedScopes: [APIKeyScope] { scopes.sorted() }

    /// Whether the key may do what `scope` allows.
    public func allows(_ scope: APIKeyScope) -> Bool { scopes.contains(scope) }

    public static let maxNameLength = 64

    /// Checks a key name: 1–64 characters of `A-Z a-z 0-9 . _ -`.
    public static func validateName(_ name: String) throws(APIKeyError) {
        guard !name.isEmpty else { throw .invalidName(name, "it is empty") }
        guard name.utf8.count <= maxNameLength else {
            throw .invalidName(name, "it is longer than \(maxNameLength) characters")
        }
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                throw .invalidName(name, "only letters, digits, '.', '_' and '-' are allowed")
            }
        }
    }
}

/// A key name or scope that cannot be used, as one line.
public enum APIKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidName(String, String)
    case unknownScope(String)

    public var description: String {
        switch self {
        case .invalidName(let name, let why):
            return "invalid API key name \(Self.shown(name)): \(why)"
        case .unknownScope(let text):
            return
                "unknown API key scope \(Self.shown(text)) (expected \(APIKeyScope.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
    }

    /// The given text, quoted, shortened and with control characters escaped, for a one-line message.
    private static func shown(_ text: String) -> String {
        let short = text.count > 70 ? String(text.prefix(64)) + "…" : text
        var out = "'"
        for scalar in short.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }
}
