/// Whose idempotency keys a key is unique among: one API key's, by its row id (never reused, so a key revoked and
/// created again under the same name starts with no keys), or the command line's.
public enum IdempotencyScope: Hashable, Sendable {
    /// The keys sent with the API key of this row id (`APIKeyRecord.id`).
    case apiKey(id: Int64)
    /// `--idempotency-key` of `apnsd send` and `apnsd campaign create`, shared by every user of the command line.
    case commandLine

    /// As stored (`idempotency_keys.api_key_id`): the API key's id, 0 for the command line (key ids start at 1).
    public var storedKeyID: Int64 {
        switch self {
        case .apiKey(let id): id
        case .commandLine: 0
        }
    }

    /// The scope a stored `api_key_id` stands for.
    public init(storedKeyID: Int64) {
        self = storedKeyID == 0 ? .commandLine : .apiKey(id: storedKeyID)
    }
}
