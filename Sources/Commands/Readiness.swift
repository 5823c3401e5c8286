import API
import Foundation
import Intake
import PostgresStore
import QueueModel

/// `GET /readyz`'s checks, whether this process can do its job now: `database` (the file is writable and the store
/// answers a query) and, when a worker runs in this process, `worker` (running, not ended by an error). Each is
/// "ok" or a reason. APNs, the credentials and the rest are `/v1/status`'s (`StatusReport`).
struct Readiness: Sendable {
    let store: any DeliveryStore
    let databasePath: String
    let worker: WorkerState?

    func checks() async -> [(String, String)] {
        var checks = [("database", await database())]
        if let worker { checks.append(("worker", worker.check)) }
        return checks
    }

    /// "ok" when the database can be written and answers, else why not.
    func database() async -> String {
        // A PostgreSQL URL has no file to check: the query below says whether the server answers.
        guard PostgresStore.isURL(databasePath) || access(databasePath, W_OK) == 0 else {
            return "not writable: \(String(cString: strerror(errno)))"
        }
        do {
            _ = try await store.workers()
            return "ok"
        } catch {
            return "\(error)"
        }
    }
}
