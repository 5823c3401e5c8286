import Foundation

/// The queue and registry sizes `/metrics` shows, read in O(log n) whatever the database's size.
public struct QueueGauges: Sendable, Hashable {
    /// Pending deliveries (waiting, leased, or waiting for a retry) of single sends.
    public var pendingSingle: Int
    /// Pending deliveries of bulk campaigns.
    public var pendingBulk: Int
    /// How long the oldest due, unleased pending delivery has been due; 0 when none is due.
    public var oldestDueAge: TimeInterval
    /// Registered devices that are sent to.
    public var activeDevices: Int
    /// Registered devices deactivated (410, BadDeviceToken …).
    public var inactiveDevices: Int

    public init(
        pendingSingle: Int, pendingBulk: Int, oldestDueAge: TimeInterval, activeDevices: Int, inactiveDevices: Int
    ) {
        self.pendingSingle = pendingSingle
        self.pendingBulk = pendingBulk
        self.oldestDueAge = oldestDueAge
        self.activeDevices = activeDevices
        self.inactiveDevices = inactiveDevices
    }
}
