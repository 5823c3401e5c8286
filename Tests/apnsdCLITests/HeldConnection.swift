import CLITestSupport
import Foundation
import TestSupport

/// A connection to a database kept open by a `sqlite3` shell, as a running worker keeps one: while it is open,
/// the `-wal` and `-shm` files stay next to the database and commits of others are not checkpointed away.
struct HeldConnection {
    private let process: ChildProcess

    init(database: String) throws {
        process = try ChildProcess("/usr/bin/sqlite3", [database], stdin: .pipe)
        // The shell opens the file at its first statement; reading a table creates -wal and -shm.
        try process.write(Data("SELECT count(*) FROM campaigns;\n".utf8))
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: database + "-shm") && Date() < deadline { usleep(10_000) }
    }

    /// Ends the shell (end of input), which closes its connection.
    func close() {
        process.closeInput()
        process.wait()
    }
}
