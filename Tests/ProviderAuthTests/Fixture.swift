import Foundation

/// Paths to the throwaway keys in Fixtures/keys and scratch folders for files the tests write.
enum Fixture {
    static let keysDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/keys")

    static func key(_ name: String) -> String {
        keysDirectory.appendingPathComponent(name).path
    }

    /// A new empty folder under the system temp folder; the caller removes it.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ProviderAuthTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
