/// What an API key may do on `/v1`. A vocabulary: the HTTP API maps each request to the one scope it needs.
public enum APIKeyScope: String, CaseIterable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Enqueue and cancel notifications, register and remove devices.
    case send
    /// Every GET.
    case read
    /// Campaigns: create, cancel, retry.
    case admin

    /// The scopes a key gets when none is named.
    public static let defaults: Set<APIKeyScope> = [.send, .read]

    /// The scope spelled `text` (lowercase, as in `--scope send`).
    public static func parse(_ text: String) throws(APIKeyError) -> APIKeyScope {
        guard let scope = APIKeyScope(rawValue: text) else { throw .unknownScope(text) }
        return scope
    }

    /// In declaration order (send, read, admin): the order scopes are stored and shown in.
    public static func < (lhs: APIKeyScope, rhs: APIKeyScope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    public var description: String { rawValue }
}
