import Foundation

/// Everything the store can fail with, each as one line a person can act on.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file does not exist and the store was opened without `createIfMissing`.
    case databaseMissing(path: String)
    /// The file could not be opened or is not a database (SQLite's message).
    case cannotOpen(path: String, reason: String)
    /// Another process held the write lock for longer than the busy timeout.
    case databaseLocked(path: String)
    /// This process may not write the file or its directory (SQLITE_READONLY), or a write was tried on a store
    /// opened with `readOnly`.
    case readOnly(path: String)
    /// The filesystem holding the database (or its WAL) is full (SQLITE_FULL); the transaction was rolled back.
    case diskFull(path: String)
    /// The operating system failed a read, write, sync or lock on the database's files (SQLITE_IOERR and its
    /// extended codes): SQLite's message, the extended code and the `errno` behind it.
    case ioError(path: String, detail: String)
    /// The file was migrated by a newer apnsd: these migration ids are unknown to this build.
    case newerSchema(path: String, unknownMigrations: [String])
    /// A store opened with `readOnly` found migrations this build needs but may not apply.
    case olderSchema(path: String, missingMigrations: [String])
    /// Any other SQLite failure, with its code and statement.
    case sqlite(SQLiteError, path: String)
    /// The store was closed.
    case closed(path: String)
    /// No campaign has this id.
    case unknownCampaign(CampaignID)
    /// Tokens can be appended, and a campaign sealed, only while it is a draft.
    case notADraft(CampaignID, CampaignStatus)
    /// The campaign specification breaks a rule (message says which).
    case invalidCampaign(String)
    /// A stored value this build cannot read (e.g. an unknown push type written by hand).
    case corruptValue(String)

    public var description: String {
        switch self {
        case .databaseMissing(let path):
            return "no database at \(path): check the path, or run a command that creates it (e.g. apnsd device add)"
        case .cannotOpen(let path, let reason):
            return "cannot open database \(path): \(reason)"
        case .databaseLocked(let path):
            return "database \(path) is locked by another process (busy timeout expired): retry, or look for a stuck writer"
        case .readOnly(let path):
            return "database \(path) is read-only for this user (uid \(geteuid())): run apnsd as the database's owner or group, "
                + "or create it with 'apnsd init --group NAME'"
        case .diskFull(let path):
            return "database \(path): the disk is full: free space on that filesystem; nothing was written"
        case .ioError(let path, let detail):
            return "database \(path): I/O error (\(detail)): check the disk and the filesystem it is on (dmesg, df, mount)"
        case .olderSchema(let path, let missing):
            return "database \(path) needs migrations this apnsd applies (\(missing.joined(separator: ", "))): "
                + "run 'apnsd init' as the database's owner"
        case .newerSchema(let path, let unknown):
            return "database \(path) was migrated by a newer apnsd (unknown migrations: \(unknown.joined(separator: ", "))): use that version"
        case .sqlite(let error, let path):
            return "database \(path): \(error)"
        case .closed(let path):
            return "database \(path) is closed"
        case .unknownCampaign(let id):
            return "no campaign with id \(id)"
        case .notADraft(let id, let status):
            return "campaign \(id) is \(status), not a draft: tokens can only be added before it is sealed"
        case .invalidCampaign(let why):
            return "invalid campaign: \(why)"
        case .corruptValue(let what):
            return "unreadable value in the database: \(what)"
        }
    }

    /// Whether the fault lies with the machine rather than with the request or the file's content, and may pass
    /// by itself or by an operator's hand (a lock released, space freed, a disk remounted, permissions fixed):
    /// a long-running writer such as the worker retries while this is true, and stops on anything else.
    public var isTransient: Bool {
        switch self {
        case .databaseLocked, .diskFull, .ioError, .readOnly: return true
        case .databaseMissing, .cannotOpen, .newerSchema, .olderSchema, .sqlite, .closed, .unknownCampaign, .notADraft,
             .invalidCampaign, .corruptValue:
            return false
        }
    }

    /// Classifies a SQLite failure on the database at `path`.
    init(_ error: SQLiteError, path: String) {
        switch error.primaryCode {
        case 5, 6: self = .databaseLocked(path: path)  // SQLITE_BUSY, SQLITE_LOCKED
        case 8: self = .readOnly(path: path)  // SQLITE_READONLY and its extended codes (…_DIRECTORY, …_CANTINIT)
        case 10: self = .ioError(path: path, detail: Self.ioDetail(error))  // SQLITE_IOERR_*
        case 13: self = .diskFull(path: path)  // SQLITE_FULL
        case 14 where error.systemErrno == EACCES: self = .permissionDenied(path: path)
        case 14, 26: self = .cannotOpen(path: path, reason: error.message)  // SQLITE_CANTOPEN, SQLITE_NOTADB
        default: self = .sqlite(error, path: path)
        }
    }

    /// The file, its `-wal` or `-shm`, or a directory on the way may not be read by this user.
    static func permissionDenied(path: String) -> StoreError {
        .cannotOpen(path: path, reason: "permission denied for this user (uid \(geteuid())) on the file, its -wal or -shm, or its directory: "
            + "run apnsd as the database's owner or a member of its group")
    }

    /// "disk I/O error, SQLite code 778, errno 5: Input/output error": the extended code says which operation
    /// failed (778 = SQLITE_IOERR_WRITE), errno why.
    private static func ioDetail(_ error: SQLiteError) -> String {
        var detail = "\(error.message), SQLite code \(error.code)"
        if error.systemErrno != 0 { detail += ", errno \(error.systemErrno): \(String(cString: strerror(error.systemErrno)))" }
        return detail
    }
}
