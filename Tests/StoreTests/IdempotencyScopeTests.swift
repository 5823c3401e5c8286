import APNs
import Foundation
import QueueModel
import QueueRules
import TestSupport
import Testing

@testable import PostgresStore
@testable import Store

/// Idempotency keys belong to an API key's row id, never to its name: ids are never given twice, a revoked key's
/// keys go with it, and the migration gives each record kept by name to the key of that name.
@Suite struct IdempotencyScopeTests {
    private static func hash(_ n: Int) -> String { String(format: "%064x", n) }

    private func request(_ n: Int, key: String, hash: String, owner: APIKeyRecord) -> EnqueueRequest {
        EnqueueRequest(
            specs: [single(token(n))],
            idempotency: IdempotencyKey(scope: .apiKey(id: owner.id), key: key, requestHash: hash))
    }

    @Test(arguments: Engine.all) func aKeyCreatedAgainUnderARevokedNameStartsWithNoKeys(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let old = try await store.createAPIKey(name: "backend", scopes: [.send], secretHash: Self.hash(1), now: t0)
        let first = try await store.enqueue([request(1, key: "k", hash: "h1", owner: old)], now: at(1))[0].get()
        #expect(try await store.enqueue([request(1, key: "k", hash: "h1", owner: old)], now: at(2))[0].get().isReplay)
        #expect(try await store.revokeAPIKey(name: "backend"))
        #expect(try await store.scalar("SELECT count(*) FROM idempotency_keys") == 0, "revoked with its key")

        let new = try await store.createAPIKey(name: "backend", scopes: [.send], secretHash: Self.hash(2), now: at(3))
        #expect(new.id > old.id, "an id is never given twice, even the highest one revoked")
        #expect(try await store.authenticateAPIKey(secretHash: Self.hash(2), now: at(3))?.id == new.id)
        #expect(try await store.apiKeys().map(\.id) == [new.id])
        let key = IdempotencyKey(scope: .apiKey(id: new.id), key: "k", requestHash: "h1")
        #expect(try await store.idempotentResult(key, now: at(4)) == nil)
        let again = try await store.enqueue([request(1, key: "k", hash: "h1", owner: new)], now: at(4))[0].get()
        #expect(!again.isReplay && again.ids != first.ids)
        let other = try await store.enqueue([request(2, key: "k2", hash: "h2", owner: new)], now: at(5))[0].get()
        #expect(!other.isReplay)
        // The command line's keys are apart from every API key's.
        let cli = try await store.enqueue(
            [
                EnqueueRequest(
                    specs: [single(token(3))],
                    idempotency: IdempotencyKey(scope: .commandLine, key: "k", requestHash: "h9"))
            ], now: at(6))[0].get()
        #expect(!cli.isReplay)
        #expect(try await store.scalar("SELECT count(*) FROM idempotency_keys") == 3)
    }

    /// The records as 0019 kept them: `backend` used by a key revoked before today's `backend` was created (at 100 s)
    /// and by today's; `gone` by a key revoked for good; `cli` by the command line.
    private static let recordsByName = """
        INSERT INTO idempotency_keys (scope, key, request_hash, campaign_ids, deliveries, created_at) VALUES
            ('api:backend', 'before', 'h0', '1', '1', \(at(50).storeMilliseconds)),
            ('api:backend', 'after', 'h1', '2', '1', \(at(150).storeMilliseconds)),
            ('api:gone', 'after', 'h2', '3', '1', \(at(150).storeMilliseconds)),
            ('api:ops', 'after', 'h3', '4', '1', \(at(160).storeMilliseconds)),
            ('cli', 'cron', 'h4', '5', '0', \(at(170).storeMilliseconds))
        """

    private static let keysByName = """
        INSERT INTO api_keys (id, name, secret_hash, scopes, created_at) VALUES
            (1, 'ops', '\(hash(1))', 'admin', \(t0.storeMilliseconds)),
            (2, 'backend', '\(hash(2))', 'send', \(at(100).storeMilliseconds))
        """

    /// What the migration left: each record found under its key's id, or gone.
    private func expectMapped(_ store: AnyStore) async throws {
        func replayed(_ scope: IdempotencyScope, _ key: String, _ hash: String) async throws -> [CampaignID]? {
            try await store.idempotentResult(IdempotencyKey(scope: scope, key: key, requestHash: hash), now: at(200))?
                .ids
        }
        #expect(try await replayed(.apiKey(id: 2), "after", "h1") == [CampaignID(2)])
        #expect(try await replayed(.apiKey(id: 2), "before", "h0") == nil, "made with a revoked key of the name")
        #expect(try await replayed(.apiKey(id: 1), "after", "h3") == [CampaignID(4)])
        #expect(try await replayed(.commandLine, "cron", "h4") == [CampaignID(5)])
        #expect(
            try await store.scalar("SELECT count(*) FROM idempotency_keys") == 3, "gone's and the old key's dropped")
        // Ids go on past the highest, and the highest revoked is not given again.
        #expect(try await store.revokeAPIKey(name: "backend"))
        let next = try await store.createAPIKey(
            name: "backend", scopes: [.send], secretHash: Self.hash(3), now: at(300))
        #expect(next.id == 3)
        #expect(try await replayed(.apiKey(id: 3), "after", "h1") == nil)
    }

    @Test func aSQLiteFileOfThePreviousVersionMapsRecordsToTheKeyOfTheirName() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let previous = Array(Schema.migrator.migrations.prefix { $0.id != "0020-idempotency-by-key-id" })
        #expect(Schema.migrator.migrations[previous.count].id == "0020-idempotency-by-key-id")
        do {
            let db = try Connection(path: folder.databasePath)
            _ = try Migrator(migrations: previous).migrate(db)
            try db.execute(Self.keysByName)
            try db.execute(Self.recordsByName)
        }
        let store = try await Store.open(at: folder.databasePath)
        try await expectMapped(store)
        #expect(
            try await store.scalar(
                "SELECT count(*) FROM sqlite_master WHERE sql LIKE '%AUTOINCREMENT%' AND name = 'api_keys'")
                == 1)
        #expect(try await store.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'idempotency_by_age'") == 1)
    }

    @Test(.enabled(if: PostgresCluster.enabled))
    func aPostgreSQLDatabaseOfThePreviousVersionMapsRecordsToTheKeyOfTheirName() async throws {
        let url = try PostgresCluster.shared.createDatabase()
        let previous = PGSchema.migrations.prefix { $0.id != "0008-idempotency-by-key-id" }
        #expect(PGSchema.migrations[previous.count].id == "0008-idempotency-by-key-id")
        do {
            let db = try PGConnection(conninfo: url)
            try db.execute("CREATE TABLE schema_migrations (id text PRIMARY KEY, applied_at bigint NOT NULL)")
            for migration in previous {
                try db.execute(migration.sql)
                try db.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('\(migration.id)', 0)")
            }
            try db.execute(Self.keysByName)
            // As created by `apnsd api-key create`, the identity past the ids given.
            try db.execute("SELECT setval(pg_get_serial_sequence('api_keys', 'id'), 2)")
            try db.execute(Self.recordsByName)
        }
        let store = try await PostgresStore.open(url: url)
        #expect(try await store.scalar("SELECT COUNT(*) FROM schema_migrations") == Int64(PGSchema.migrations.count))
        try await expectMapped(store)
    }
}
