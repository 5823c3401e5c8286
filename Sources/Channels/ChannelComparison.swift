import APNs
import QueueModel

/// One app's channels in one environment, the local table against APNs's `all-channels`.
public struct ChannelComparison: Sendable, Hashable {
    public var topic: String
    public var environment: Environment
    /// Recorded here and listed by APNs.
    public var both: [Channel]
    /// Recorded here (not deleted) but not listed by APNs: deleted elsewhere, or the Broadcast capability turned off.
    public var localOnly: [Channel]
    /// Listed by APNs but not recorded here: made by another tool or another apnsd database.
    public var apnsOnly: [String]

    public init(topic: String, environment: Environment, both: [Channel], localOnly: [Channel], apnsOnly: [String]) {
        self.topic = topic
        self.environment = environment
        self.both = both
        self.localOnly = localOnly
        self.apnsOnly = apnsOnly
    }
}
