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

    @Test func aSessionTheServerEndedIsReplacedBeforeTheNextCall() async throws {
        // What a restart (`pg_ctl restart -m fast`) or a failover does to an idle connection: the server ends its
        // session. Once the server answers again, the next call must not fail for it (a 503 from the API, a storage
        // fault pausing a worker).
        let url = try PostgresCluster.shared.createDatabase()
        let store = try await PostgresStore.open(url: url)
        for write in [false, true] {
            let ended = try #require(try await store.scalar("SELECT pg_backend_pid()"))
            let terminated = try PostgresCluster.query(url, "SELECT pg_terminate_backend(\(ended))")
            #expect(terminated.trimmingCharacters(in: .whitespacesAndNewlines) == "t")
            var gone = false
            for _ in 0..<600 where !gone {
                let left = try PostgresCluster.query(url, "SELECT count(*) FROM pg_stat_activity WHERE pid = \(ended)")
                gone = left.trimmingCharacters(in: .whitespacesAndNewlines) == "0"
                if !gone { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(gone, "the session should end")
            if write {
                _ = try await store.registerWorker(host: "restart.example", pid: 1)
            } else {
                _ = try await store.workers()
            }
            #expect(try await store.scalar("SELECT pg_backend_pid()") != ended)
        }
    }
}
