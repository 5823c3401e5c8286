import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

@Suite struct MigrationTests {
    @Test func openingTwiceAppliesEachMigrationOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try await Store.open(at: folder.databasePath)
        await first.close()
        let second = try await Store.open(at: folder.databasePath)
        let ids = Schema.migrator.migrations.map(\.id)
        #expect(!ids.isEmpty)
        for id in ids {
            #expect(try await second.scalar("SELECT COUNT(*) FROM schema_migrations WHERE id = '\(id)'") == 1)
        }
        #expect(try await second.scalar("SELECT COUNT(*) FROM schema_migrations") == Int64(ids.count))
        #expect(try await second.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'deliveries_due'") == 1)
    }

    @Test func fileIsInWALMode() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        await store.close()
        // Bytes 18 and 19 of the database header are 2 for WAL, 1 for a rollback journal.
        let header = try Data(contentsOf: URL(fileURLWithPath: folder.databasePath)).prefix(20)
        #expect(Array(header[18...19]) == [2, 2])
    }

    @Test func aNewerSchemaIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        try await store.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('9999-from-the-future', 0)")
        await store.close()
        await #expect(
            throws: StoreError.newerSchema(path: folder.databasePath, unknownMigrations: ["9999-from-the-future"])
        ) {
            _ = try await Store.open(at: folder.databasePath)
        }
    }

    @Test func missingFileIsAnErrorWhenCreationIsNotAllowed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let error = await #expect(throws: StoreError.self) {
            _ = try await Store.open(at: folder.databasePath, options: .init(createIfMissing: false))
        }
        #expect(error == .databaseMissing(path: folder.databasePath))
        #expect(error?.description.contains(folder.databasePath) == true)
        #expect(!FileManager.default.fileExists(atPath: folder.databasePath))
    }

    @Test func aFileThatIsNotADatabaseIsReportedWithItsPath() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: folder.databasePath))
        let error = await #expect(throws: StoreError.self) {
            _ = try await Store.open(at: folder.databasePath)
        }
        guard case .cannotOpen(let path, _) = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(path == folder.databasePath)
    }

    @Test func storeCodeRunsOnItsOwnThread() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        for _ in 0..<3 {
            #expect(await store.runsOnExecutorThread())
            _ = try await store.deviceCount()
        }
    }

    @Test func closedStoreFailsWithClosed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        await store.close()
        await #expect(throws: StoreError.closed(path: folder.databasePath)) {
            _ = try await store.deviceCount()
        }
    }
}
