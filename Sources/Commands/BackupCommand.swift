import Foundation
import Intake
import QueueModel

/// `apnsd backup PATH`: a consistent copy of the database, taken while workers and the API keep writing.
enum BackupCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        let path = try arguments.positionals(exactly: ["PATH"])[0]
        let store = try await StoreAccess.openForBackup(configuration)
        let bytes: Int64
        do { bytes = try await store.backup(to: path) } catch { throw .store(error) }
        if arguments.flag("json") {
            Output.line(JSONLine(["path": .string(path), "bytes": .int(Int(bytes))]).description)
        } else {
            Output.line("backed up \(configuration.databaseName) to \(path) (\(bytes) bytes)")
        }
    }
}
