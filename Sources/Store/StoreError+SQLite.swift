import Foundation
import QueueModel

extension StoreError {
    /// Classifies a SQLite failure on the database at `path`.
    init(_ error: SQLiteError, path: String) {
        switch error.primaryCode {
        case 5, 6: self = .databaseLocked(path: path)  // SQLITE_BUSY, SQLITE_LOCKED
        case 8: self = .readOnly(path: path)  // SQLITE_READONLY and its extended codes (…_DIRECTORY, …_CANTINIT)
        case 10: self = .ioError(path: path, detail: Self.ioDetail(error))  // SQLITE_IOERR_*
        case 13: self = .diskFull(path: path)  // SQLITE_FULL
        case 14 where error.systemErrno == EACCES: self = .permissionDenied(path: path)
        case 14, 26: self = .cannotOpen(path: path, reason: error.message)  // SQLITE_CANTOPEN, SQLITE_NOTADB
        default: self = .engineFailure(path: path, code: Int(error.code), detail: error.description)
        }
    }

    /// The file, its `-wal` or `-shm`, or a directory on the way may not be read by this user.
    static func permissionDenied(path: String) -> StoreError {
        .cannotOpen(
            path: path,
            reason:
                "permission denied for this user (uid \(geteuid())) on the file, its -wal or -shm, or its directory: "
                + "only the database's owner or a member of its group may open it")
    }

    /// "disk I/O error, SQLite code 778, errno 5: Input/output error": the extended code says which operation
    /// failed (778 = SQLITE_IOERR_WRITE), errno why.
    private static func ioDetail(_ error: SQLiteError) -> String {
        var detail = "\(error.message), SQLite code \(error.code)"
        if error.systemErrno != 0 {
            detail += ", errno \(error.systemErrno): \(String(cString: strerror(error.systemErrno)))"
        }
        return detail
    }
}
