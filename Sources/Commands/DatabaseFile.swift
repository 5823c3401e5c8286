import Foundation

/// The database file's mode. It holds device tokens and user ids, so it is never readable by other users:
/// `apnsd init` creates it 0640 (owner read-write, its group read: an operator's group may run the read-only
/// commands), `init --group` makes it 0660 (`DatabaseGroup`). SQLite gives `-wal` and `-shm` the database
/// file's mode, so they follow. A umask only narrows these.
enum DatabaseFile {
    static let mode: mode_t = 0o640

    /// Creates an empty database file with `mode` when there is none (SQLite takes an empty file as a new
    /// database; left to itself it would create it 0644). True when this call created it.
    static func createPrivate(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) != 0, errno == ENOENT else { return false }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { return false }  // No directory, no permission: opening it says so in SQLite's words.
        close(fd)
        return true
    }

    /// Takes every permission of other users away from the database files this user owns (a database made
    /// before apnsd created it 0640, or copied in with a loose mode). The names of those changed.
    static func removeWorldAccess(_ database: String) -> [String] {
        DatabaseGroup.files(of: database).filter { file in
            var info = stat()
            guard stat(file, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o007 != 0 else { return false }
            return chmod(file, info.st_mode & 0o7770) == 0
        }
    }
}
