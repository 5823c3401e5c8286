import QueueModel

/// `GET /readyz`'s checks, whether this process can do its job now: `database` (the file is writable and the store
/// answers a query) and, when a worker runs in this process, `worker` (running, not ended by an error). Each is
/// "ok" or a reason. APNs, the credentials and the rest are `/v1/status`'s (`StatusReport`).
struct Readiness: Sendable {
    let store: any DeliveryStore
    let worker: WorkerState?

    func checks() async -> [(String, String)] {
        var checks = [("database", await database())]
        if let worker { checks.append(("worker", worker.check)) }
        return checks
    }

    /// "ok" when this process's store can write now (a write that changes nothing goes through), else why not.
    /// Not the file's mode: a file made read-only under a running process is still written by its open connection.
    func database() async -> String {
        do {
            try await store.probeWrite()
            return "ok"
        } catch {
            return "\(error)"
        }
    }
}
