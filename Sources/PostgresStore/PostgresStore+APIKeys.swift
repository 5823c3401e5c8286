import APNs
import Foundation
import QueueModel
import QueueRules

/// API keys (`api_keys`): only secret hashes, looked up through the table's unique index; revoking deletes the row.
extension PostgresStore {
    public func createAPIKey(name: String, scopes: Set<APIKeyScope>, secretHash: String, now: Date) throws(StoreError)
        -> APIKeyRecord
    {
        do { try APIKeyRecord.validateName(name) } catch { throw .invalidAPIKey(error.description) }
        guard !scopes.isEmpty else { throw .invalidAPIKey("an API key needs at least one scope") }
        guard Self.isSHA256Hex(secretHash) else { throw .invalidAPIKey("a secret hash is 64 lowercase hex digits") }
        let nowMS = now.storeMilliseconds
        return try write { db in
            // ON CONFLICT on the name: a concurrent creation of the same name is refused, not an engine failure.
            let inserted = try db.query(
                """
                INSERT INTO api_keys (name, secret_hash, scopes, created_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (name) DO NOTHING RETURNING id
                """, name, secretHash, Self.scopesText(scopes), nowMS)
            guard inserted.count == 1 else { throw StoreError.duplicateAPIKey(name: name) }
            return APIKeyRecord(
                id: try inserted.int64(0, 0), name: name, scopes: scopes, createdAt: Milliseconds.date(nowMS))
        }
    }

    public func apiKeys() throws(StoreError) -> [APIKeyRecord] {
        try read { db in
            let rows = try db.query("SELECT id, name, scopes, created_at, last_used_at FROM api_keys ORDER BY name")
            return try rows.map { row in try Self.apiKey(rows, row) }
        }
    }

    /// The key's idempotency keys go with it: no later key is given its id, and none may see them.
    public func revokeAPIKey(name: String) throws(StoreError) -> Bool {
        try write { db in
            try db.query(
                "DELETE FROM idempotency_keys WHERE api_key_id = (SELECT id FROM api_keys WHERE name = $1)", name)
            return try db.query("DELETE FROM api_keys WHERE name = $1", name).changes > 0
        }
    }

    /// Reads outside a transaction; writes only when the recorded use is a minute old or more. A failure of that
    /// write that may pass by itself (the database unreachable a moment, a read-only standby) does not refuse the
    /// request: the key is valid, and only its last-used time is late.
    public func authenticateAPIKey(secretHash: String, now: Date) throws(StoreError) -> APIKeyRecord? {
        guard Self.isSHA256Hex(secretHash) else { return nil }
        let found: APIKeyRecord? = try read { db in
            let rows = try db.query(
                "SELECT id, name, scopes, created_at, last_used_at FROM api_keys WHERE secret_hash = $1", secretHash)
            return rows.count > 0 ? try Self.apiKey(rows, 0) : nil
        }
        guard var key = found else { return nil }
        let nowMS = now.storeMilliseconds
        let every = Self.recordUseEvery
        if let last = key.lastUsedAt, nowMS - last.storeMilliseconds < every { return key }
        do {
            let written = try write { db in
                try db.query(
                    """
                    UPDATE api_keys SET last_used_at = $2
                    WHERE secret_hash = $1 AND (last_used_at IS NULL OR last_used_at <= $2 - $3)
                    """, secretHash, nowMS, every
                ).changes > 0
            }
            if written { key.lastUsedAt = Milliseconds.date(nowMS) }
        } catch  where error.isTransient {
            // See above: the use is recorded by a later request.
        }
        return key
    }

    // MARK: - Internals

    /// `APIKeyUse.recordEvery` in milliseconds.
    private static let recordUseEvery: Int64 = {
        let components = APIKeyUse.recordEvery.components
        return components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }()

    private static func apiKey(_ rows: PGResult, _ row: Int) throws -> APIKeyRecord {
        var scopes: Set<APIKeyScope> = []
        for text in try rows.string(row, 2).split(separator: ",") {
            guard let scope = APIKeyScope(rawValue: String(text)) else {
                throw StoreError.corruptValue("API key scope '\(text)' of key '\(try rows.string(row, 1))'")
            }
            scopes.insert(scope)
        }
        return APIKeyRecord(
            id: try rows.int64(row, 0), name: try rows.string(row, 1), scopes: scopes,
            createdAt: Milliseconds.date(try rows.int64(row, 3)),
            lastUsedAt: try rows.optionalInt64(row, 4).map(Milliseconds.date))
    }

    /// Scopes as stored: comma-separated, in their canonical order (send, read, admin).
    private static func scopesText(_ scopes: Set<APIKeyScope>) -> String {
        scopes.sorted().map(\.rawValue).joined(separator: ",")
    }

    private static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }
}
