/// Everything the store can fail with, each as one line a person can act on.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file does not exist and the store was opened without `createIfMissing`.
    case databaseMissing(path: String)
    /// The file could not be opened or is not a database (SQLite's message).
    case cannotOpen(path: String, reason: String)
    /// Another process held the write lock for longer than the busy timeout.
    case databaseLocked(path: String)
    /// The file was migrated by a newer apnsd: these migration ids are unknown to this build.
    case newerSchema(path: String, unknownMigrations: [String])
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

    /// Classifies a SQLite failure on the database at `path`.
    init(_ error: SQLiteError, path: String) {
        switch error.primaryCode {
        case 5, 6: self = .databaseLocked(path: path)  // SQLITE_BUSY, SQLITE_LOCKED
        case 14, 26: self = .cannotOpen(path: path, reason: error.message)  // SQLITE_CANTOPEN, SQLITE_NOTADB
        default: self = .sqlite(error, path: path)
        }
    }
}
