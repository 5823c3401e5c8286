import Foundation
import ProviderAuth
import QueueModel
import Threads

/// Checks `Authorization: Bearer SECRET` against the stored hashes. A key found is remembered for a second, so a
/// busy client costs the store one lookup a second instead of one per request; a revoked key (`apnsd api-key
/// revoke`, another process) therefore stops working within a second.
final class Authenticator: Sendable {
    static let memory: TimeInterval = 1

    private let store: any APIKeyStore
    private let remembered = Locked<[String: (record: APIKeyRecord, until: Date)]>([:])

    init(store: any APIKeyStore) { self.store = store }

    /// The key the request's bearer secret belongs to; 401 when none is given or it matches no live key.
    func authenticate(_ authorization: String?) async throws(APIError) -> APIKeyRecord {
        guard let authorization, let secret = Self.bearerSecret(authorization) else {
            throw APIError(
                401, "unauthorized", "send an API key as Authorization: Bearer SECRET (apnsd api-key create NAME)",
                headers: [("WWW-Authenticate", "Bearer")])
        }
        guard APIKeySecret.isWellFormed(secret) else { throw Self.unknownKey }
        let hash = APIKeySecret.hash(secret)
        let now = Date()
        if let known = remembered.withLock({ $0[hash] }), known.until > now { return known.record }
        let record: APIKeyRecord?
        do { record = try await store.authenticateAPIKey(secretHash: hash, now: now) } catch {
            throw APIError.store(error)
        }
        guard let record else { throw Self.unknownKey }
        remembered.withLock { cache in
            if cache.count > 10_000 { cache.removeAll() }
            cache[hash] = (record, now.addingTimeInterval(Self.memory))
        }
        return record
    }

    /// What follows `Bearer` (the scheme in any case, RFC 7235) and exactly one space: nothing is trimmed, so extra
    /// spaces or a tab make the secret malformed. nil when the scheme is not Bearer or nothing follows.
    static func bearerSecret(_ authorization: String) -> String? {
        let bytes = Array(authorization.utf8)
        // `| 0x20` lowercases an ASCII letter; only `B` and `b` become `b`, and so on for each letter.
        guard bytes.count > 7, bytes[6] == 0x20, zip(bytes[0..<6], "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        return String(decoding: bytes[7...], as: UTF8.self)
    }

    private static let unknownKey = APIError(
        401, "unauthorized", "the API key is not valid (revoked, or never created)",
        headers: [("WWW-Authenticate", "Bearer")])
}
