import Threads

/// Where the worker of this process (`apnsd serve`'s, or `apnsd worker --worker-listen`'s) stands, for `GET
/// /readyz`. (`Locked`, not the standard library's `Mutex`: ThreadSanitizer cannot see the latter.)
final class WorkerState: Sendable {
    enum Status: Sendable, Equatable {
        case starting
        case running
        /// Stopped by a signal.
        case stopped
        /// Ended by an error (its one-line reason).
        case failed(String)
    }

    private let status = Locked(Status.starting)

    var current: Status { status.withLock { $0 } }

    func set(_ new: Status) { status.withLock { $0 = new } }

    /// "ok" while it runs, else why not.
    var check: String {
        switch current {
        case .running: "ok"
        case .starting: "starting"
        case .stopped: "stopped"
        case .failed(let reason): "failed: \(reason)"
        }
    }
}
