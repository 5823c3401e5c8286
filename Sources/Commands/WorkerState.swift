import Dispatcher
import Threads

/// Where the worker `apnsd serve` runs stands, for `GET /readyz`. (`Locked`, not the standard library's `Mutex`:
/// ThreadSanitizer cannot see the latter.)
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
    private let contact = Locked<(@Sendable () -> APNsContact)?>(nil)
    private let credentials = Locked<(@Sendable () -> [CredentialStatus])?>(nil)

    var current: Status { status.withLock { $0 } }

    func set(_ new: Status) { status.withLock { $0 = new } }

    /// Where the running worker's `APNsContact` is read from.
    func attach(contact source: @escaping @Sendable () -> APNsContact) { contact.withLock { $0 = source } }

    /// Where the running worker's credentials' states are read from.
    func attach(credentials source: @escaping @Sendable () -> [CredentialStatus]) {
        credentials.withLock { $0 = source }
    }

    /// Every credential's state (none before the worker starts).
    var credentialStatuses: [CredentialStatus] { credentials.withLock { $0 }?() ?? [] }

    /// The worker's contact with APNs (empty before it starts: nothing tried, nothing unanswered).
    var apnsContact: APNsContact { contact.withLock { $0 }?() ?? APNsContact() }

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
