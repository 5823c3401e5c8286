import CLITestSupport
import Foundation
import TestSupport

/// A connection to a database kept open by a `sqlite3` shell, as a running worker keeps one: while it is open,
/// the `-wal` and `-shm` files stay next to the database and commits of others are not checkpointed away.
struct HeldConnection {
    private let process: Process
    private let input: Pipe

    init(database: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database]
        input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ToolRun.launch(process)
        // The shell opens the file at its first statement; reading a table creates -wal and -shm.
        input.fileHandleForWriting.write(Data("SELECT count(*) FROM campaigns;\n".utf8))
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: database + "-shm") && Date() < deadline { usleep(10_000) }
    }

    /// Ends the shell (end of input), which closes its connection.
    func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
