import Foundation

/// What API-key management and request authentication need from a store. Only the SHA-256 hash of a secret is
/// ever handed to a store (`APIKeySecret.hash` in ProviderAuth), never the secret itself.
///
/// Times given as `now:` are injected so tests control the clock; callers pass the current time.
public protocol APIKeyStore: Actor {
    /// Stores a new key. `StoreError.duplicateAPIKey` when a live key has this name; `StoreError.invalidAPIKey`
    /// when the name or the scopes are not acceptable (no scope at all is refused).
    func createAPIKey(name: String, scopes: Set<APIKeyScope>, secretHash: String, now: Date) async throws(StoreError)
        -> APIKeyRecord
    /// Every live key, by name.
    func apiKeys() async throws(StoreError) -> [APIKeyRecord]
    /// Revokes the key named `name`, with its idempotency keys: false when there is none. Its name may be used again
    /// at once, by a new key (a new id).
    func revokeAPIKey(name: String) async throws(StoreError) -> Bool
    /// The key whose secret hashes to `secretHash`, nil when none. Records the use at `now` when the last
    /// recorded use is at least `APIKeyUse.recordEvery` old (so authenticating every request does not write
    /// every time).
    func authenticateAPIKey(secretHash: String, now: Date) async throws(StoreError) -> APIKeyRecord?
}

/// How often a key's use is written.
public enum APIKeyUse {
    /// A use within this long of the last recorded one is not written.
    public static let recordEvery: Duration = .seconds(60)
}
