import API
import Dispatcher
import Foundation
import Intake
import PostgresStore
import QueueModel

/// `GET /readyz`'s checks: `database` (the file is writable and the store answers a query) and, when the
/// worker runs in this process, `worker` (running, not ended by an error) and `apns` (APNs answered within the
/// last minute, or nothing went unanswered: `APNsContact.readiness` on `clock`). Each is "ok" or a reason.
struct Readiness: Sendable {
    let store: any ProducerStore
    let databasePath: String
    let worker: WorkerState?
    var clock: @Sendable () -> Date = Date.init

    func checks() async -> [(String, String)] {
        var checks = [("database", await database())]
        if let worker {
            checks.append(("worker", worker.check))
            checks.append(("apns", worker.apnsContact.readiness(now: clock())))
            let statuses = worker.credentialStatuses
            let paused = statuses.filter { $0.paused != nil }
            checks.append(
                (
                    "credentials",
                    !statuses.isEmpty && paused.count == statuses.count
                        ? "every credential is paused: "
                            + paused.map { "\($0.name) (\($0.paused!))" }.joined(separator: "; ") : "ok"
                ))
        }
        return checks
    }

    /// Each credential's state for `/readyz`: paused and why, and its certificate's days left.
    func credentials() -> [CredentialReadiness] {
        guard let worker else { return [] }
        let now = clock()
        return worker.credentialStatuses.map { status in
            CredentialReadiness(
                name: status.name, paused: status.paused,
                pausedSince: status.pausedSince.map(JSONLine.timestamp),
                certificateDaysLeft: status.certificateDaysLeft(now: now))
        }
    }

    private func database() async -> String {
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
