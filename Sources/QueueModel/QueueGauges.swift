import Foundation

/// The queue and registry sizes `/metrics` shows, read in O(log n) whatever the database's size.
public struct QueueGauges: Sendable, Hashable {
    /// Pending deliveries (waiting, leased, or waiting for a retry) of single sends.
    public var pendingSingle: Int
    /// Pending deliveries of bulk campaigns.
    public var pendingBulk: Int
    /// How long the oldest due single send has been due (0 when none is): leased, held through an outage or a
    /// paused credential, or waiting; not a future `at`.
    public var oldestDueAgeSingle: TimeInterval
    /// The same for bulk deliveries; a paused campaign's are not due.
    public var oldestDueAgeBulk: TimeInterval
    /// Registered devices that are sent to.
    public var activeDevices: Int
    /// Registered devices deactivated (410, BadDeviceToken …).
    public var inactiveDevices: Int
    /// Events the webhook has not acknowledged (from the first after its cursor to the last, by id).
    public var webhookBacklog: Int

    public init(
        pendingSingle: Int, pendingBulk: Int, oldestDueAgeSingle: TimeInterval, oldestDueAgeBulk: TimeInterval,
        activeDevices: Int, inactiveDevices: Int, webhookBacklog: Int = 0
    ) {
        self.pendingSingle = pendingSingle
        self.pendingBulk = pendingBulk
        self.oldestDueAgeSingle = oldestDueAgeSingle
        self.oldestDueAgeBulk = oldestDueAgeBulk
        self.activeDevices = activeDevices
        self.inactiveDevices = inactiveDevices
        self.webhookBacklog = webhookBacklog
    }

    /// How long the oldest due delivery of either class has been due; 0 when none is.
    public var oldestDueAge: TimeInterval { max(oldestDueAgeSingle, oldestDueAgeBulk) }
}
