/// A store that can write a consistent copy of itself while in use (`apnsd backup`).
public protocol BackupStore: Sendable {
    /// Writes the copy to `path` (which must not exist); returns its size in bytes.
    func backup(to path: String) async throws(StoreError) -> Int64
}
