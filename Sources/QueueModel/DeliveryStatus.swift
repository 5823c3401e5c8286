/// The status of one delivery (one device of one campaign), as `apnsd log --status` filters it.
public enum DeliveryStatus: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Not yet sent, in flight (leased), or waiting for a retry.
    case pending
    /// APNs answered 200.
    case accepted
    /// APNs refused the request for a reason that retrying cannot fix (400, 403, 404, 405, 413 …).
    case rejected
    /// APNs answered 410 (Unregistered, ExpiredToken): the token is no longer valid for the topic.
    case unregistered
    /// Gave up: retries exhausted or the notification expired.
    case failed
    /// The campaign was cancelled, or the device was inactive when its turn came.
    case cancelled

    public var description: String { rawValue }
}
