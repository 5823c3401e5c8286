import APNs
import Foundation

/// One request of a delivery that APNs answered (or that timed out after it was written): `apnsd log --attempts`.
public struct DeliveryAttempt: Hashable, Sendable {
    /// 1 for the first request, counting as `LogEntry.attempts` does.
    public var attempt: Int
    /// When the answer was recorded.
    public var at: Date
    /// APNs' HTTP status; nil for a request that timed out after it was written.
    public var httpStatus: Int?
    public var reason: Reason?

    public init(attempt: Int, at: Date, httpStatus: Int?, reason: Reason?) {
        self.attempt = attempt
        self.at = at
        self.httpStatus = httpStatus
        self.reason = reason
    }
}
