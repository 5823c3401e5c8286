import Foundation
import Logging
import QueueModel
import Threads

/// Deletes old events for `apnsd serve`: those written more than `retention` ago, and, when a webhook delivers
/// them, only once it has acknowledged them or parked them (an unreachable receiver never loses events). Once at
/// start, then every `interval`, until its task is cancelled.
public struct EventPruner: Sendable {
    /// How long events stay for `GET /v1/events` readers after they were written.
    public static let defaultRetention: Duration = .seconds(7 * 24 * 3600)

    let store: any EventStore
    let retention: Duration
    let interval: Duration
    let keepUndelivered: Bool
    let logger: Logger

    public init(
        store: any EventStore, retention: Duration = defaultRetention, interval: Duration = .seconds(3600),
        keepUndelivered: Bool, logger: Logger
    ) {
        self.store = store
        self.retention = retention
        self.interval = interval
        self.keepUndelivered = keepUndelivered
        self.logger = logger
    }

    /// One pass at `now`: how many events were deleted.
    @discardableResult
    public func pruneOnce(now: Date = Date()) async throws(StoreError) -> Int {
        let deleted = try await store.pruneEvents(
            writtenBefore: now.addingTimeInterval(-retention.seconds), keepUndelivered: keepUndelivered)
        if deleted > 0 { logger.info("events.pruned", ("events", .int(deleted))) }
        return deleted
    }

    /// Prunes now and every `interval` until cancelled; a failed pass is logged and tried again next time.
    public func run() async {
        while !Task.isCancelled {
            do { try await pruneOnce() } catch { logger.warning("events.prune_failed", ("error", "\(error)")) }
            try? await Task.sleep(for: interval)
        }
    }
}
