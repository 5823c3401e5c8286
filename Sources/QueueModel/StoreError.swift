import Foundation

/// Everything a store can fail with, each as one line a person can act on. Engine-neutral: an engine's own
/// failure is kept as its code and text (`engineFailure`), and no message names a command of a program using
/// the store (a command line adds its own hints where it prints the error).
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
    /// The database server cannot be reached, is starting or shutting down, or the connection to it was lost
    /// (PostgreSQL): the server's or libpq's message. Nothing of the failed transaction was written.
    case unavailable(path: String, detail: String)
    /// The file was migrated by a newer apnsd: these migration ids are unknown to this build.
    case newerSchema(path: String, unknownMigrations: [String])
    /// A store opened with `readOnly` found migrations this build needs but may not apply.
    case olderSchema(path: String, missingMigrations: [String])
    /// Any other failure of the database engine: its (extended) result code and its text (for SQLite: code,
    /// message and statement).
    case engineFailure(path: String, code: Int, detail: String)
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
    /// A live API key already has this name.
    case duplicateAPIKey(name: String)
    /// An API key name or scope set breaks a rule (message says which).
    case invalidAPIKey(String)
    /// The idempotency key was used within its lifetime with a different request.
    case idempotencyConflict(key: String)
    /// A device registration breaks a rule (message says which): a bad kind, a missing or forbidden activity type.
    case invalidDevice(String)
    /// A device was named by token alone, and the token is registered for several topics: name the topic.
    case ambiguousDevice(token: String, topics: [String])
    /// A broadcast channel record breaks a rule (message says which), or its APNs id is already recorded.
    case invalidChannel(String)
    /// A backup could not be written to the path (nothing is left there).
    case backupFailed(String, String)

    public var description: String {
        switch self {
        case .databaseMissing(let path):
            return "no database at \(path): check the path"
        case .cannotOpen(let path, let reason):
            return "cannot open database \(path): \(reason)"
        case .databaseLocked(let path):
            return
                "database \(path) is locked by another process (busy timeout expired): retry, or look for a stuck writer"
        case .readOnly(let path):
            return "database \(path) is read-only for this user (uid \(geteuid()))"
        case .diskFull(let path):
            return "database \(path): the disk is full: free space on that filesystem; nothing was written"
        case .ioError(let path, let detail):
            return
                "database \(path): I/O error (\(detail)): check the disk and the filesystem it is on (dmesg, df, mount)"
        case .unavailable(let path, let detail):
            return
                "database \(path) is unavailable (\(detail)): check that the server runs and is reachable; retrying is safe"
        case .olderSchema(let path, let missing):
            return "database \(path) needs migrations this apnsd applies (\(missing.joined(separator: ", ")))"
        case .newerSchema(let path, let unknown):
            return
                "database \(path) was migrated by a newer apnsd (unknown migrations: \(unknown.joined(separator: ", "))): use that version"
        case .engineFailure(let path, _, let detail):
            return "database \(path): \(detail)"
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
        case .duplicateAPIKey(let name):
            return "an API key named '\(name)' already exists"
        case .idempotencyConflict(let key):
            return
                "idempotency key '\(key)' was already used with a different request (keys are remembered for 24 hours)"
        case .invalidAPIKey(let why):
            return why
        case .invalidChannel(let why):
            return why
        case .invalidDevice(let why):
            return "invalid device: \(why)"
        case .ambiguousDevice(let token, let topics):
            return "token \(token) is registered for several topics (\(topics.joined(separator: ", "))): name the topic"
        case .backupFailed(let path, let why):
            return "cannot write a backup to \(path): \(why)"
        }
    }

    /// Whether the fault lies with the machine rather than with the request or the file's content, and may pass
    /// by itself or by an operator's hand (a lock released, space freed, a disk remounted, permissions fixed):
    /// a long-running writer such as the worker retries while this is true, and stops on anything else.
    public var isTransient: Bool {
        switch self {
        case .databaseLocked, .diskFull, .ioError, .readOnly, .unavailable: return true
        case .databaseMissing, .cannotOpen, .newerSchema, .olderSchema, .engineFailure, .closed, .unknownCampaign,
            .notADraft,
            .invalidCampaign, .corruptValue, .duplicateAPIKey, .invalidAPIKey, .idempotencyConflict, .ambiguousDevice,
            .invalidDevice, .invalidChannel, .backupFailed:
            return false
        }
    }
}
