internal import CSQLite
import Foundation

extension Connection {
    /// Copies this connection's database into `destination` with SQLite's online backup, all pages in one step:
    /// one read transaction, so the copy is a single consistent snapshot while other connections (a worker,
    /// another process) keep writing to the WAL.
    func backup(into destination: Connection) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error(SQLITE_ERROR, sql: "backup")
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else { throw destination.error(stepped, sql: "backup") }
        guard finished == SQLITE_OK else { throw destination.error(finished, sql: "backup") }
    }
}
