import Foundation
import Store

/// `apnsd-bench write-deferred`: writes the notifications waiting in the database's deferred batches as campaigns,
/// PAGE per transaction (1,000: as the worker does) (`Store.expandDeferredBatch`), and times it: how fast a worker turns
/// accepted batches into claimable deliveries, apart from sending them.
enum DeferredWriteBenchmark {
    static func run(database: String, page: Int, upTo maximum: Int) async {
        do {
            let store = try await Store.open(at: database)
            let start = ContinuousClock.now
            var notifications = 0
            var deliveries = 0
            while notifications < maximum {
                let written = try await store.expandDeferredBatch(limit: min(page, maximum - notifications))
                if written.notifications == 0 { break }
                notifications += written.notifications
                deliveries += written.deliveries
            }
            let elapsed = start.duration(to: .now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            emit("notifications", notifications)
            emit("deliveries", deliveries)
            emit("seconds", String(format: "%.2f", seconds))
            emit("per_second", String(format: "%.0f", seconds > 0 ? Double(notifications) / seconds : 0))
        } catch {
            fail("\(error)")
        }
    }
}
