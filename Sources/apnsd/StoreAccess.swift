import Intake
import Store

/// Opening the database for a command, with errors that tell the operator what to do.
enum StoreAccess {
    /// Commands that only read pass `readOnly`, so that they work on a file this user may not write (the
    /// worker's, read by an operator) and never change it, not even by migrating it.
    static func open(_ configuration: Configuration, create: Bool = false, readOnly: Bool = false,
                     cacheSizeMiB: Int = 64) async throws(CLIError) -> Store {
        do {
            return try await Store.open(at: configuration.database,
                                        options: Store.Options(createIfMissing: create, readOnly: readOnly, cacheSizeMiB: cacheSizeMiB))
        } catch .databaseMissing {
            throw .failure("no database at \(configuration.database); run 'apnsd init' first (or set database / APNSD_DATABASE)")
        } catch {
            throw .failure("\(error)")
        }
    }
}

extension CLIError {
    /// Wraps a store (or other) error as a failure (exit 1); a CLIError passes through.
    static func store(_ error: any Error) -> CLIError { (error as? CLIError) ?? .failure("\(error)") }
}
