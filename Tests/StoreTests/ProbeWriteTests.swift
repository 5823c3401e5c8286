import Foundation
import QueueModel
import TestSupport
import Testing

@testable import Store

/// `probeWrite`, the `database` check of `/readyz`: it fails when the file refuses writes, even with the store open.
@Suite struct ProbeWriteTests {
    @Test func aFileThatRefusesWritesFailsTheProbeUntilItTakesWritesAgain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        try await store.registerDevices(0..<2)
        try await store.probeWrite()
        // Immutable (ext4, as root): writes fail even through the descriptors the store holds open.
        let files = [folder.databasePath, folder.databasePath + "-wal"]
        let immutable = try await ToolRun.run("/usr/bin/chattr", ["+i"] + files)
        try #require(immutable.status == 0, "chattr +i: \(immutable.stderr)")
        defer { _ = try? ToolRun.run("/usr/bin/chattr", ["-i"] + files) as ToolRun.Outcome }
        await #expect(throws: StoreError.self) { try await store.probeWrite() }
        #expect(try await ToolRun.run("/usr/bin/chattr", ["-i"] + files).status == 0)
        try await store.probeWrite()
        await store.close()
    }
}
