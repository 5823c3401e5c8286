/// An idempotency key as a store keeps it: the key the producer chose, the scope it is unique in (the API key that
/// sent it, by id, or the command line) and the SHA-256 of the request it came with.
public struct IdempotencyKey: Hashable, Sendable {
    public var scope: IdempotencyScope
    public var key: String
    /// Lowercase hex SHA-256 of the request (the JSON body, or the CLI's normalized arguments).
    public var requestHash: String

    /// Keys are remembered this long; an older key is forgotten and may be used again.
    public static let lifetime: Duration = .seconds(24 * 3600)
    /// The longest key accepted, in bytes.
    public static let maximumLength = 255

    public init(scope: IdempotencyScope, key: String, requestHash: String) {
        self.scope = scope
        self.key = key
        self.requestHash = requestHash
    }

    /// Checks a key as given (`Idempotency-Key` header, `--idempotency-key`): 1–255 printable ASCII characters.
    public static func validate(_ key: String) -> String? {
        guard !key.isEmpty else { return "an idempotency key must not be empty" }
        guard key.utf8.count <= maximumLength else {
            return "idempotency key of \(key.utf8.count) bytes; at most \(maximumLength)"
        }
        guard key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return "an idempotency key is printable ASCII without spaces"
        }
        return nil
    }
}
