import APNs
import QueueModel

/// What `channel list` and `GET /v1/channels` show: the local rows and, when APNs was asked (a topic given), whether
/// it lists each one and the channels it has that are not recorded here.
public struct ChannelListing: Sendable, Hashable {
    /// One recorded channel; `atAPNs` nil when APNs was not asked.
    public struct Row: Sendable, Hashable {
        public var channel: Channel
        public var atAPNs: Bool?

        public init(channel: Channel, atAPNs: Bool?) {
            self.channel = channel
            self.atAPNs = atAPNs
        }
    }

    /// A channel APNs lists that this database did not record (made by another tool or database).
    public struct Unrecorded: Sendable, Hashable {
        public var channelID: String
        public var topic: String
        public var environment: Environment

        public init(channelID: String, topic: String, environment: Environment) {
            self.channelID = channelID
            self.topic = topic
            self.environment = environment
        }
    }

    public var rows: [Row]
    public var notRecorded: [Unrecorded]
    /// Whether APNs was asked.
    public var compared: Bool

    public init(rows: [Row], notRecorded: [Unrecorded], compared: Bool) {
        self.rows = rows
        self.notRecorded = notRecorded
        self.compared = compared
    }
}
