/// What an event reports; the raw value is its `type` in JSON and in the `events` table.
public enum EventType: String, Hashable, Sendable, CaseIterable {
    /// A device stopped being sent to: APNs said its token is gone or wrong, or it was replaced or removed.
    case deviceDeactivated = "device.deactivated"
    /// A delivery ended `failed`: apnsd gave up (retries exhausted, expired).
    case deliveryFailed = "delivery.failed"
}
