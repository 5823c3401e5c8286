import Foundation

/// What `prune` removed (or, in a dry run, would remove) and gave back.
public struct PruneReport: Sendable, Equatable {
    public var dryRun: Bool
    /// Finished deliveries last changed before this were removed.
    public var deliveriesBefore: Date
    /// Inactive devices deactivated, and active devices last registered, before this were removed.
    public var devicesBefore: Date
    public var deliveries = 0
    /// Devices removed: `inactiveDevices` deactivated ones, the rest active but not registered again.
    public var devices = 0
    public var inactiveDevices = 0
    /// Steps taken: each one short transaction (a read, in a dry run) over at most `batch` ids, or one
    /// incremental-vacuum step.
    public var steps = 0
    /// Pages given back to the filesystem by incremental vacuum (0 in a dry run).
    public var pagesReclaimed = 0
    /// The file's free space after pruning (in a dry run: as it was).
    public var space = FreeSpace(incremental: false, freePages: 0, pageSize: 0, pageCount: 0)

    public init(dryRun: Bool, deliveriesBefore: Date, devicesBefore: Date) {
        self.dryRun = dryRun
        self.deliveriesBefore = deliveriesBefore
        self.devicesBefore = devicesBefore
    }
}
