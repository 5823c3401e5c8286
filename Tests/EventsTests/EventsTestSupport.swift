import APNs
import Foundation
import QueueModel
import Store

/// A store in a fresh temporary folder, removed by `remove()`.
struct TemporaryStore {
    let folder: URL
    let store: Store

    init() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("events-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        store = try await Store.open(at: folder.appendingPathComponent("apnsd.sqlite").path)
    }

    var path: String { folder.appendingPathComponent("apnsd.sqlite").path }

    func remove() async {
        await store.close()
        try? FileManager.default.removeItem(at: folder)
    }
}

let topic = "com.example.app"

/// A distinct valid token for `n`.
func token(_ n: Int) -> DeviceToken {
    try! DeviceToken(String(repeating: "ab", count: 28) + String(format: "%08x", n))
}

extension Store {
    /// Registers device `n` and removes it: one `device.deactivated` event.
    func writeEvent(_ n: Int) async throws {
        try register(DeviceRegistration(token: token(n), topic: topic))
        try deactivateDevice(token: token(n), topic: topic, reason: .removed)
    }
}

/// Waits up to `timeout` for `condition`.
func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// `body`'s result, or nil when it has not returned within `bound`. The calls tested this way are asked to wait an
/// hour: returning within the (generous, load-proof) bound shows they did not wait, without timing them.
func returned<T: Sendable>(within bound: Duration = .seconds(60), _ body: @escaping @Sendable () async throws -> T)
    async throws -> T?
{
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(for: bound)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
