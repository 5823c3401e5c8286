/// What one step of pruning did: rows removed (or, in a dry run, that would be), and where the next step
/// starts.
public struct PruneStep: Sendable, Equatable {
    /// Rows deleted (counted, in a dry run).
    public var removed: Int
    /// Of the devices removed, how many were inactive (the rest were active but not registered again); 0 for
    /// deliveries.
    public var inactive: Int
    /// The id the next step starts after; nil when there is nothing more to look at.
    public var next: Int64?

    public init(removed: Int, inactive: Int = 0, next: Int64?) {
        self.removed = removed
        self.inactive = inactive
        self.next = next
    }
}
