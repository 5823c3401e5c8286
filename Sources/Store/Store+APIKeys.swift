import Foundation
import QueueModel
import QueueRules

/// API keys (`api_keys`, SCHEMA.md). The store sees only secret hashes. A key is looked up by the hash of the
/// presented secret through the table's unique index; revoking deletes the row.
extension Store: APIKeyStore {
    public func createAPIKey(name: String, scopes: Set<APIKeyScope>, secretHash: String, now: Date) throws(StoreError)
        -> APIKeyRecord
    {
        do { try APIKeyRecord.validateName(name) } catch { throw .invalidAPIKey(error.description) }
        guard !scopes.isEmpty else { throw .invalidAPIKey("an API key needs at least one scope") }
        guard Self.isSHA256Hex(secretHash) else { throw .invalidAPIKey("a secret hash is 64 lowercase hex digits") }
        let nowMS = now.storeMilliseconds
        return try write { db in
            let existing = try db.cached("SELECT COUNT(*) FROM api_keys WHERE name = ?").bind(name).scalarInt64() ?? 0
            guard existing == 0 else { throw StoreError.duplicateAPIKey(name: name) }
            try db.cached("INSERT INTO api_keys (name, secret_hash, scopes, created_at) VALUES (?, ?, ?, ?)")
                .bind(name, secretHash, Self.scopesText(scopes), nowMS).run()
            return APIKeyRecord(
                id: db.lastInsertRowID, name: name, scopes: scopes, createdAt: Milliseconds.date(nowMS))
        }
    }

    public func apiKeys() throws(StoreError) -> [APIKeyRecord] {
        try read { db in
            let statement = try db.cached(
                "SELECT id, name, scopes, created_at, last_used_at FROM api_keys ORDER BY name"
            )
            .bind()
            defer { statement.reset() }
            var keys: [APIKeyRecord] = []
            while try statement.step() { keys.append(try Self.apiKey(statement)) }
            return keys
        }
    }

    /// The key's idempotency keys go with it: no later key can be given its id, and none may see them.
    public func revokeAPIKey(name: String) throws(StoreError) -> Bool {
        try write { db in
            try db.cached("DELETE FROM idempotency_keys WHERE api_key_id = (SELECT id FROM api_keys WHERE name = ?)")
                .bind(name).run()
            try db.cached("DELETE FROM api_keys WHERE name = ?").bind(name).run()
            return db.changes > 0
        }
    }

    /// Reads outside a transaction; writes only when the recorded use is a minute old or more. A failure of that
    /// write that may pass by itself (a lock held past the busy timeout, a full disk, a read-only file) does not
    /// refuse the request: the key is valid, and only its last-used time is late.
    public func authenticateAPIKey(secretHash: String, now: Date) throws(StoreError) -> APIKeyRecord? {
        guard Self.isSHA256Hex(secretHash) else { return nil }
        let found: APIKeyRecord? = try read { db in
            let statement = try db.cached(
                "SELECT id, name, scopes, created_at, last_used_at FROM api_keys WHERE secret_hash = ?"
            )
            .bind(secretHash)
            defer { statement.reset() }
            return try statement.step() ? try Self.apiKey(statement) : nil
        }
        guard var key = found else { return nil }
        let nowMS = now.storeMilliseconds
        let every = Milliseconds.from(APIKeyUse.recordEvery)
        if let last = key.lastUsedAt, nowMS - last.storeMilliseconds < every { return key }
        do {
            let written = try write { db in
                try db.cached(
                    """
                    UPDATE api_keys SET last_used_at = ?2
                    WHERE secret_hash = ?1 AND (last_used_at IS NULL OR last_used_at <= ?2 - ?3)
                    """
                ).bind(secretHash, nowMS, every).run()
                return db.changes > 0
            }
            if written { key.lastUsedAt = Milliseconds.date(nowMS) }
        } catch  where error.isTransient {
            // See above: the use is recorded by a later request.
        }
        return key
    }

    private static func apiKey(_ statement: Statement) throws -> APIKeyRecord {
        var scopes: Set<APIKeyScope> = []
        for text in statement.string(2).split(separator: ",") {
            guard let scope = APIKeyScope(rawValue: String(text)) else {
                throw StoreError.corruptValue("API key scope '\(text)' of key '\(statement.string(1))'")
            }
            scopes.insert(scope)
        }
        return APIKeyRecord(
            id: statement.int64(0), name: statement.string(1), scopes: scopes,
            createdAt: Milliseconds.date(statement.int64(3)),
            lastUsedAt: statement.optionalInt64(4).map(Milliseconds.date))
    }

    static func scopesText(_ scopes: Set<APIKeyScope>) -> String {
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
