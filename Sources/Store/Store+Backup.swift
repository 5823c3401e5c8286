import Foundation
import QueueModel

extension Store: BackupStore {
    /// Writes a consistent copy of the database to `path` while others keep writing (SQLite's online backup):
    /// first to `path.partial`, created 0600 (it holds tokens and user ids), then renamed, so `path` is never a
    /// half-written copy. Refuses to overwrite an existing file. Returns the copy's size in bytes.
    @discardableResult
    public func backup(to path: String) throws(StoreError) -> Int64 {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw .backupFailed(path, "the file exists; choose a new name")
        }
        let partial = path + ".partial"
        for leftover in [partial, partial + "-wal", partial + "-shm"] { unlink(leftover) }
        let fd = Glibc.open(partial, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        guard fd >= 0 else { throw .backupFailed(path, String(cString: strerror(errno))) }
        Glibc.close(fd)
        do {
            try read { db in
                let destination = try Connection(path: partial, options: .init(create: false, cacheSizeKiB: 2048))
                try db.backup(into: destination)
                // Leave a single file: the copy's own WAL is folded in and removed when it closes.
                try destination.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            guard rename(partial, path) == 0 else {
                throw StoreError.backupFailed(path, String(cString: strerror(errno)))
            }
        } catch {
            for leftover in [partial, partial + "-wal", partial + "-shm"] { unlink(leftover) }
            if let failed = error as? StoreError, case .backupFailed = failed { throw failed }
            throw StoreError.backupFailed(path, "\(error)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return size
    }
}
