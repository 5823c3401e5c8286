import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// `Store.Options.readOnly`: reads what writers committed, never writes, never migrates.
@Suite struct ReadOnlyStoreTests {
    func readOnly(_ folder: TemporaryFolder) async throws -> Store {
        try await Store.open(at: folder.databasePath, options: .init(readOnly: true))
    }

    @Test func readsWhatAnOpenWriterCommittedToItsWAL() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try await Store.open(at: folder.databasePath)
        try await writer.registerDevices(0..<3)
        let id = try await writer.enqueueSingle(single(token(1)), now: t0)
        let reader = try await readOnly(folder)
        #expect(try await reader.deviceCount() == 3)
        #expect(try await reader.campaign(id).counters.total == 1)
        try await writer.registerDevices(3..<5)
        #expect(try await reader.devices().count == 5, "each read sees the latest commit")
    }

    @Test func writesFailAsReadOnlyAndChangeNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try await Store.open(at: folder.databasePath)
        try await writer.registerDevices(0..<2)
        await writer.close()
        let reader = try await readOnly(folder)
        await #expect(throws: StoreError.readOnly(path: folder.databasePath)) {
            try await reader.enqueueSingle(single(token(1)), now: t0)
        }
        await #expect(throws: StoreError.readOnly(path: folder.databasePath)) {
            try await reader.register(DeviceRegistration(token: token(9), topic: topic), now: t0)
        }
        #expect(try await reader.campaigns().isEmpty)
        #expect(try await reader.deviceCount() == 2)
    }

    @Test func aMissingFileIsNotCreated() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        await #expect(throws: StoreError.databaseMissing(path: folder.databasePath)) {
            _ = try await Store.open(at: folder.databasePath, options: .init(createIfMissing: true, readOnly: true))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func anOlderSchemaIsRefusedNotMigrated() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try await Store.open(at: folder.databasePath)
        let last = try #require(Schema.migrator.migrations.last?.id)
        try await writer.execute("DELETE FROM schema_migrations WHERE id = '\(last)'")
        await writer.close()
        await #expect(throws: StoreError.olderSchema(path: folder.databasePath, missingMigrations: [last])) {
            _ = try await readOnly(folder)
        }
        let check = try Connection(path: folder.databasePath)
        #expect(
            try check.prepare("SELECT count(*) FROM schema_migrations WHERE id = '\(last)'").scalarInt64() == 0,
            "the read-only open did not record the migration")
    }

    @Test func aNewerSchemaIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try await Store.open(at: folder.databasePath)
        try await writer.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('9999-from-the-future', 0)")
        await writer.close()
        await #expect(
            throws: StoreError.newerSchema(path: folder.databasePath, unknownMigrations: ["9999-from-the-future"])
        ) {
            _ = try await readOnly(folder)
        }
    }

    @Test func aFileWithoutTheSchemaNeedsEveryMigration() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data().write(to: URL(fileURLWithPath: folder.databasePath))
        await #expect(
            throws: StoreError.olderSchema(
                path: folder.databasePath, missingMigrations: Schema.migrator.migrations.map(\.id))
        ) {
            _ = try await readOnly(folder)
        }
    }

    /// Immutable access (chosen when this user may not write the file or its directory and no `-wal` exists)
    /// reads the main file alone and creates nothing next to it, whatever characters the path holds.
    @Test func immutableAccessReadsTheFileAndCreatesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let odd = folder.url.appendingPathComponent("a?b#c%20d")
        try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: true)
        let path = odd.appendingPathComponent("apnsd.sqlite").path
        let writer = try await Store.open(at: path)
        try await writer.registerDevices(0..<4)
        await writer.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: odd.path) == ["apnsd.sqlite"])
        #expect(ConnectionAccess.immutable.filename(for: path).hasPrefix("file:///"))
        let db = try Connection(path: path, options: .init(access: .immutable))
        #expect(try db.prepare("SELECT count(*) FROM devices").scalarInt64() == 4)
        #expect(throws: SQLiteError.self) { try db.execute("DELETE FROM devices") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: odd.path) == ["apnsd.sqlite"])
    }

    @Test func readOnlyAccessFollowsTheWALWhileAConnectionIsOpen() async throws {
        let folder = try TemporaryFolder()
        defer {
            chmod(folder.url.path, 0o755)
            folder.remove()
        }
        let writer = try await Store.open(at: folder.databasePath)
        try await writer.registerDevices(0..<1)
        try #require(chmod(folder.databasePath, 0o444) == 0 && chmod(folder.url.path, 0o555) == 0)
        #expect(
            ConnectionAccess.readOnly(for: folder.databasePath) == .readOnly,
            "a -wal exists: the writer's -shm is there to read")
        await writer.close()
        #expect(!FileManager.default.fileExists(atPath: folder.databasePath + "-wal"))
        // Without a -wal, whether this user may write the file and its directory decides; permission bits do not bind root.
        let expected: ConnectionAccess = geteuid() == 0 ? .readOnly : .immutable
        #expect(ConnectionAccess.readOnly(for: folder.databasePath) == expected)
        let reader = try await readOnly(folder)
        #expect(try await reader.deviceCount() == 1)
    }
}
