import APNs
import HTTP2Transport
import QueueModel

/// What a worker reports as it goes, for whoever watches it (apnsd feeds its metrics from these). Called on the
/// worker's loop: implementations must return at once (count, store a value), never wait.
public protocol WorkerObserver: Sendable {
    /// A request written to APNs in `environment` got HTTP `status` (nil: no answer, a transport failure after it
    /// was written) `seconds` after its first byte was written. Requests that never left are not reported here.
    func apnsAnswered(_ environment: Environment, status: Int?, seconds: Double)
    /// These outcomes were written to the store; each is final (not a retry).
    func recorded(final results: [DeliveryResult])
    /// `count` attempts to connect to APNs in `environment` failed for `reason`.
    func connectFailed(_ environment: Environment, reason: ConnectFailureReason, count: Int)
    /// A request for a delivery of `kind` was written to APNs `seconds` after the delivery became due.
    func queueWaited(_ kind: CampaignKind, seconds: Double)
}

extension WorkerObserver {
    public func connectFailed(_ environment: Environment, reason: ConnectFailureReason, count: Int) {}
    public func queueWaited(_ kind: CampaignKind, seconds: Double) {}
}
