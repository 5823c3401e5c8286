import Foundation
import QueueModel
import Testing

@testable import Store

/// API keys on each engine: only hashes are stored, revoke deletes, last use is written at most once a minute.
@Suite struct APIKeyTests {
    /// A stand-in for `APIKeySecret.hash` (module ProviderAuth): any 64 lowercase hex digits.
    static func hash(_ n: Int) -> String { String(format: "%064x", n) }

    func opened(_ engine: Engine) async throws -> (AnyStore, TestDatabase) {
        let database = try TestDatabase(engine)
        return (try await database.open(), database)
    }

    @Test(arguments: Engine.all) func createListAuthenticateRevoke(engine: Engine) async throws {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        let created = try await store.createAPIKey(
            name: "backend", scopes: APIKeyScope.defaults, secretHash: Self.hash(1), now: at(0))
        #expect(
            created
                == APIKeyRecord(
                    id: created.id, name: "backend", scopes: [.send, .read], createdAt: at(0), lastUsedAt: nil))
        _ = try await store.createAPIKey(name: "ops.admin", scopes: [.admin], secretHash: Self.hash(2), now: at(1))
        #expect(try await store.apiKeys().map(\.name) == ["backend", "ops.admin"])

        let found = try await store.authenticateAPIKey(secretHash: Self.hash(2), now: at(5))
        #expect(found?.name == "ops.admin" && found?.scopes == [.admin] && found?.lastUsedAt == at(5))
        #expect(found?.allows(.admin) == true && found?.allows(.send) == false)
        #expect(try await store.authenticateAPIKey(secretHash: Self.hash(3), now: at(5)) == nil, "an unknown hash")
        #expect(try await store.authenticateAPIKey(secretHash: "not a hash", now: at(5)) == nil)

        #expect(try await store.revokeAPIKey(name: "ops.admin"))
        #expect(try await store.revokeAPIKey(name: "ops.admin") == false, "already revoked")
        #expect(
            try await store.authenticateAPIKey(secretHash: Self.hash(2), now: at(6)) == nil,
            "a revoked key stops at once")
        #expect(try await store.apiKeys().map(\.name) == ["backend"])
        #expect(try await store.scalar("SELECT COUNT(*) FROM api_keys") == 1, "revoking deletes the row")

        // A revoked name can be created again, with a new secret.
        _ = try await store.createAPIKey(name: "ops.admin", scopes: [.read], secretHash: Self.hash(4), now: at(7))
        #expect(try await store.authenticateAPIKey(secretHash: Self.hash(4), now: at(8))?.scopes == [.read])
    }

    @Test(arguments: Engine.all) func aDuplicateNameIsRefusedAndNothingIsWritten(engine: Engine) async throws {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        _ = try await store.createAPIKey(name: "backend", scopes: [.send], secretHash: Self.hash(1), now: at(0))
        await #expect(throws: StoreError.duplicateAPIKey(name: "backend")) {
            try await store.createAPIKey(name: "backend", scopes: [.read], secretHash: Self.hash(2), now: at(1))
        }
        #expect(try await store.authenticateAPIKey(secretHash: Self.hash(2), now: at(2)) == nil)
        #expect(try await store.apiKeys().count == 1)
    }

    @Test(arguments: Engine.all) func badNamesScopesAndHashesAreRefused(engine: Engine) async throws {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        for name in ["", "has space", String(repeating: "a", count: 65), "é", "a/b", "line\nbreak"] {
            await #expect(throws: StoreError.self, "name \(name.debugDescription)") {
                try await store.createAPIKey(name: name, scopes: [.send], secretHash: Self.hash(1), now: at(0))
            }
        }
        _ = try await store.createAPIKey(
            name: String(repeating: "a", count: 64), scopes: [.send], secretHash: Self.hash(1), now: at(0))
        await #expect(throws: StoreError.invalidAPIKey("an API key needs at least one scope")) {
            try await store.createAPIKey(name: "none", scopes: [], secretHash: Self.hash(2), now: at(0))
        }
        await #expect(throws: StoreError.self, "a secret (not a hash) is refused") {
            try await store.createAPIKey(name: "plain", scopes: [.send], secretHash: "apnsd_secret", now: at(0))
        }
    }

    @Test(arguments: Engine.all) func onlyTheHashIsStored(engine: Engine) async throws {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        _ = try await store.createAPIKey(
            name: "k", scopes: [.send, .read, .admin], secretHash: Self.hash(0xabc), now: at(0))
        #expect(
            try await store.scalar(
                "SELECT COUNT(*) FROM api_keys WHERE secret_hash = '\(Self.hash(0xabc))' AND scopes = 'send,read,admin'"
            ) == 1)
        let columns =
            engine == .sqlite
            ? "SELECT COUNT(*) FROM pragma_table_info('api_keys') WHERE name LIKE '%secret%'"
            : "SELECT COUNT(*) FROM information_schema.columns WHERE table_name = 'api_keys' AND column_name LIKE '%secret%'"
        #expect(try await store.scalar(columns) == 1, "secret_hash is the only column about the secret")
    }

    @Test(arguments: Engine.all) func lastUseIsWrittenAtMostOnceAMinute(engine: Engine) async throws {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        _ = try await store.createAPIKey(name: "k", scopes: [.read], secretHash: Self.hash(1), now: at(0))
        #expect(try await store.apiKeys().first?.lastUsedAt == nil, "never used")
        #expect(try await store.authenticateAPIKey(secretHash: Self.hash(1), now: at(10))?.lastUsedAt == at(10))
        // SQLite counts the connection's changes; PostgreSQL's row version (xmin) moves at each write of the row.
        let changes =
            engine == .sqlite ? "SELECT total_changes()" : "SELECT xmin::text::bigint FROM api_keys WHERE name = 'k'"
        let changesBefore = try await store.scalar(changes)
        #expect(
            try await store.authenticateAPIKey(secretHash: Self.hash(1), now: at(30))?.lastUsedAt == at(10),
            "within a minute: not written")
        #expect(try await store.authenticateAPIKey(secretHash: Self.hash(1), now: at(69.9))?.lastUsedAt == at(10))
        #expect(try await store.scalar(changes) == changesBefore, "no write within the minute")
        #expect(try await store.apiKeys().first?.lastUsedAt == at(10))
        #expect(
            try await store.authenticateAPIKey(secretHash: Self.hash(1), now: at(70))?.lastUsedAt == at(70),
            "a minute later: written")
        #expect(try await store.apiKeys().first?.lastUsedAt == at(70))
        // A clock that went back does not move the last use back.
        #expect(try await store.authenticateAPIKey(secretHash: Self.hash(1), now: at(20))?.lastUsedAt == at(70))
        #expect(try await store.apiKeys().first?.lastUsedAt == at(70))
    }

    @Test(arguments: Engine.all) func aReadOnlyStoreListsAndAuthenticatesWithoutWriting(engine: Engine) async throws {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        _ = try await store.createAPIKey(name: "k", scopes: [.read], secretHash: Self.hash(1), now: at(0))
        let reader = try await database.open(readOnly: true)
        #expect(try await reader.apiKeys().map(\.name) == ["k"])
        let key = try await reader.authenticateAPIKey(secretHash: Self.hash(1), now: at(100))
        #expect(key?.name == "k" && key?.lastUsedAt == nil, "valid; its use is recorded by a writable store later")
        await #expect(throws: StoreError.self) { _ = try await reader.revokeAPIKey(name: "k") }
    }
}
