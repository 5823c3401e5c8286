import Foundation
import QueueModel
import Testing

@testable import Store

/// SQLite's result codes become errors an operator can act on, and the worker can tell faults that may pass
/// (retry) from the rest (stop).
@Suite struct StoreErrorTests {
    let path = "/var/lib/apnsd/apnsd.sqlite"

    func classify(_ code: Int32, _ message: String = "message", errno: Int32 = 0) -> StoreError {
        StoreError(SQLiteError(code: code, message: message, sql: "UPDATE x", systemErrno: errno), path: path)
    }

    @Test func readOnlyCodesBecomeReadOnly() {
        // SQLITE_READONLY and its extended codes: _RECOVERY, _CANTLOCK, _ROLLBACK, _DBMOVED, _CANTINIT, _DIRECTORY.
        for code: Int32 in [8, 264, 520, 776, 1032, 1288, 1544] {
            #expect(classify(code) == .readOnly(path: path), "code \(code)")
        }
        let line = StoreError.readOnly(path: path).description
        #expect(
            line.contains(path) && line.contains("uid \(geteuid())") && !line.contains("apnsd init"), "no command named"
        )
        #expect(!line.contains("\n"))
    }

    @Test func fullBecomesDiskFull() {
        #expect(classify(13, "database or disk is full") == .diskFull(path: path))
        let line = StoreError.diskFull(path: path).description
        #expect(line.contains(path) && line.contains("disk is full") && line.contains("nothing was written"))
    }

    @Test func ioErrorsKeepTheExtendedCodeAndErrno() {
        // 778 = SQLITE_IOERR_WRITE, 1034 = SQLITE_IOERR_FSYNC, 4618 = SQLITE_IOERR_SHMOPEN.
        for code: Int32 in [10, 778, 1034, 4618] {
            guard case .ioError(let errorPath, let detail) = classify(code, "disk I/O error", errno: EIO) else {
                Issue.record("code \(code) was not classified as an I/O error")
                continue
            }
            #expect(errorPath == path)
            #expect(detail.contains("SQLite code \(code)") && detail.contains("errno \(EIO): Input/output error"))
        }
        let line = classify(778, "disk I/O error").description
        #expect(line.contains(path) && line.contains("check the disk") && !line.contains("errno"))
    }

    @Test func busyAndLockedStayDatabaseLocked() {
        #expect(classify(5) == .databaseLocked(path: path))
        #expect(classify(517) == .databaseLocked(path: path))  // SQLITE_BUSY_SNAPSHOT
        #expect(classify(6) == .databaseLocked(path: path))
    }

    @Test func cantOpenSaysPermissionDeniedWhenThatIsWhy() {
        guard case .cannotOpen(_, let reason) = classify(14, "unable to open database file", errno: EACCES) else {
            Issue.record("expected cannotOpen")
            return
        }
        #expect(reason.contains("permission denied") && reason.contains("uid \(geteuid())"))
        #expect(
            classify(14, "unable to open database file", errno: ENOENT)
                == .cannotOpen(path: path, reason: "unable to open database file"))
    }

    @Test func otherCodesStayGenericSQLiteErrors() {
        let constraint = SQLiteError(code: 2067, message: "UNIQUE constraint failed", sql: "UPDATE x")
        #expect(
            StoreError(constraint, path: path) == .engineFailure(path: path, code: 2067, detail: constraint.description)
        )
    }

    @Test func onlyMachineFaultsAreTransient() {
        let transient: [StoreError] = [
            .databaseLocked(path: path), .diskFull(path: path), .ioError(path: path, detail: "disk I/O error"),
            .readOnly(path: path),
        ]
        let permanent: [StoreError] = [
            .databaseMissing(path: path), .cannotOpen(path: path, reason: "x"),
            .newerSchema(path: path, unknownMigrations: ["9"]),
            .olderSchema(path: path, missingMigrations: ["2"]),
            .engineFailure(path: path, code: 19, detail: "constraint"),
            .closed(path: path), .unknownCampaign(CampaignID(1)), .notADraft(CampaignID(1), .running),
            .invalidCampaign("x"),
            .corruptValue("x"),
        ]
        for error in transient { #expect(error.isTransient, "\(error)") }
        for error in permanent { #expect(!error.isTransient, "\(error)") }
    }
}
