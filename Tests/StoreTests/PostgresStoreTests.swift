import Foundation
import QueueModel
import TestSupport
import Testing

@testable import PostgresStore

/// What only the PostgreSQL engine has: its connection, schema versions, URLs and wake-ups.
@Suite(.enabled(if: PostgresCluster.enabled)) struct PostgresStoreTests {
    @Test func opensMigratesAndReopensReadOnly() async throws {
        let url = try PostgresCluster.shared.createDatabase()
        await #expect(throws: StoreError.databaseMissing(path: PostgresStore.redacted(url))) {
            _ = try await PostgresStore.open(url: url, options: .init(createIfMissing: false))
        }
        let store = try await PostgresStore.open(url: url)
        let applied = try await store.scalar("SELECT COUNT(*) FROM schema_migrations")
        #expect(applied == Int64(PGSchema.migrations.count))
        await store.close()
        let reader = try await PostgresStore.open(url: url, options: .init(readOnly: true))
        await #expect(throws: StoreError.self) { try await reader.execute("CREATE TABLE x (a int)") }
    }

    @Test func aURLIsNamedWithoutItsPassword() {
        #expect(
            PostgresStore.redacted("postgres://apnsd:s3cret@db.example:5432/apnsd?sslmode=verify-full&password=x")
                == "postgres://apnsd@db.example:5432/apnsd?sslmode=verify-full")
        #expect(
            PostgresStore.redacted("postgresql:///apnsd?host=/run/postgresql")
                == "postgresql:///apnsd?host=/run/postgresql")
        #expect(
            PostgresStore.isURL("postgresql://x") && PostgresStore.isURL("postgres://x")
                && !PostgresStore.isURL("/var/lib/apnsd.db"))
    }

    @Test func anUnreachableServerIsUnavailableWhichIsTransient() async throws {
        let url = "postgresql:///nothing?host=/nonexistent-apnsd&port=5999&connect_timeout=2"
        do {
            _ = try await PostgresStore.open(url: url)
            Issue.record("opened an unreachable server")
        } catch {
            guard case .unavailable = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(error.isTransient)
        }
    }

    @Test func aNotificationFromAnotherConnectionMovesTheChangeCount() async throws {
        let url = try PostgresCluster.shared.createDatabase()
        let worker = try await PostgresStore.open(url: url)
        let producer = try await PostgresStore.open(url: url)
        let before = try await worker.changeCount()
        // The listener connects in the background; wait until it counted its connection.
        var waited = 0
        while try await worker.changeCount() == before, waited < 500 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        let listening = try await worker.changeCount()
        try await producer.execute("NOTIFY \(PostgresStore.channel)")
        waited = 0
        while try await worker.changeCount() == listening, waited < 500 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        #expect(try await worker.changeCount() > listening)
    }
}
