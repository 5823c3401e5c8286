import APNs
import Foundation

/// The broadcast channels the simulator holds (one environment per simulator, so per bundle id), the scripted
/// broadcast answers, and the channel statistics. Shared by every event loop.
///
/// Bounded: at most `maxPerApp` channels per bundle id (Apple's 10,000 by default) and `maximumTotal` in all, past
/// which a create gets CannotCreateChannelConfig; the statistics keep every live channel and the last
/// `deletedKept` deleted ones.
final class ChannelBook: @unchecked Sendable {
    /// Channels held in all, whatever the apps: a client that creates channels for ever-new bundle ids stops here.
    static let maximumTotal = 100_000
    /// Deleted channels whose counts the statistics keep.
    static let deletedKept = 10_000

    /// What a broadcast comes to once the request itself is valid.
    enum BroadcastOutcome: Equatable {
        case notRegistered
        /// A nonzero apns-expiration on a channel that stores no message.
        case expirationOnNoStorage
        case scripted(status: Int, reason: Reason, delayMs: Int)
        case accepted(delayMs: Int)
    }

    private struct Channel {
        let bundleID: String
        let policy: Int
        let order: Int
        var broadcasts = 0
        var failuresServed = 0
    }

    let maxPerApp: Int
    private let withoutBroadcast: Set<String>
    private let behaviours: [String: BroadcastBehaviour]
    private let lock = NSLock()
    private var channels: [String: Channel] = [:]
    private var perApp: [String: Int] = [:]
    private var nextOrder = 0
    private var random = SystemRandomNumberGenerator()
    private var requests: [String: Int] = [:]
    private var reasons: [String: Int] = [:]
    private var created = 0
    private var deleted = 0
    private var broadcastsAccepted = 0
    private var deletedEntries: [String: MockStats.ChannelEntry] = [:]
    private var deletedOrder: [String] = []
    private var deletedHead = 0

    init(maxPerApp: Int, withoutBroadcast: Set<String>, behaviours: [String: BroadcastBehaviour]) {
        self.maxPerApp = maxPerApp
        self.withoutBroadcast = withoutBroadcast
        self.behaviours = behaviours
    }

    /// Whether the app lacks the Broadcast capability (FeatureNotEnabled).
    func featureDisabled(bundleID: String) -> Bool { withoutBroadcast.contains(bundleID) }

    /// A new channel's id (16 random bytes, standard base64), or nil when the app or the simulator is full.
    func create(bundleID: String, policy: Int) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard perApp[bundleID, default: 0] < maxPerApp, channels.count < Self.maximumTotal else { return nil }
        var id: String
        repeat {
            var bytes = [UInt8](repeating: 0, count: 16)
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &random) }
            id = Data(bytes).base64EncodedString()
        } while channels[id] != nil || deletedEntries[id] != nil
        channels[id] = Channel(bundleID: bundleID, policy: policy, order: nextOrder)
        nextOrder += 1
        perApp[bundleID, default: 0] += 1
        created += 1
        return id
    }

    /// The message storage policy of the app's channel `id`; nil when the app has no such channel.
    func policy(bundleID: String, id: String) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard let channel = channels[id], channel.bundleID == bundleID else { return nil }
        return channel.policy
    }

    /// Deletes the app's channel `id`; false when it has no such channel.
    func delete(bundleID: String, id: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let channel = channels[id], channel.bundleID == bundleID else { return false }
        channels[id] = nil
        perApp[bundleID, default: 1] -= 1
        if perApp[bundleID] == 0 { perApp[bundleID] = nil }
        deleted += 1
        deletedEntries[id] = MockStats.ChannelEntry(
            bundleID: bundleID, messageStoragePolicy: channel.policy,
            broadcasts: channel.broadcasts, deleted: true)
        deletedOrder.append(id)
        if deletedOrder.count - deletedHead > Self.deletedKept {
            deletedEntries[deletedOrder[deletedHead]] = nil
            deletedHead += 1
            if deletedHead > 4096 && deletedHead * 2 > deletedOrder.count {
                deletedOrder.removeFirst(deletedHead)
                deletedHead = 0
            }
        }
        return true
    }

    /// The app's channel ids, oldest first.
    func list(bundleID: String) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return channels.filter { $0.value.bundleID == bundleID }.sorted { $0.value.order < $1.value.order }.map(\.key)
    }

    /// Judges a valid broadcast to the app's channel `id` with `expiration` (nil: no header), and counts it when
    /// accepted.
    func broadcast(bundleID: String, id: String, expiration: Int64?) -> BroadcastOutcome {
        lock.lock()
        defer { lock.unlock() }
        guard var channel = channels[id], channel.bundleID == bundleID else { return .notRegistered }
        if channel.policy == 0, let expiration, expiration != 0 { return .expirationOnNoStorage }
        let behaviour = behaviours[bundleID]
        let delay = behaviour?.delayMs ?? 0
        if let times = behaviour?.failTimes, channel.failuresServed < times {
            channel.failuresServed += 1
            channels[id] = channel
            let status = behaviour?.failStatus ?? 429
            let reason: Reason =
                status == 429 ? .tooManyRequests : status == 500 ? .internalServerError : .serviceUnavailable
            return .scripted(status: status, reason: reason, delayMs: delay)
        }
        channel.broadcasts += 1
        channels[id] = channel
        broadcastsAccepted += 1
        return .accepted(delayMs: delay)
    }

    /// Counts one answered channel request: its operation (nil: none, the method did not fit the path) and its
    /// error reason, if any.
    func record(operation: ChannelRequest.Operation?, reason: Reason?) {
        lock.lock()
        defer { lock.unlock() }
        requests[operation?.rawValue ?? "other", default: 0] += 1
        if let reason { reasons[reason.rawValue, default: 0] += 1 }
    }

    func snapshot() -> MockStats.Channels {
        lock.lock()
        defer { lock.unlock() }
        var entries = deletedEntries
        for (id, channel) in channels {
            entries[id] = MockStats.ChannelEntry(
                bundleID: channel.bundleID, messageStoragePolicy: channel.policy,
                broadcasts: channel.broadcasts, deleted: false)
        }
        return MockStats.Channels(
            requests: requests, created: created, deleted: deleted, open: channels.count,
            broadcastsAccepted: broadcastsAccepted, reasons: reasons, byID: entries)
    }
}
