import Foundation
import QueueModel

/// `apnsd log --follow`: prints each row again whenever it changes (a send, an answer, a retry), until
/// SIGINT/SIGTERM. Polls from another process than the writer: `changeCount` (SQLite's `data_version`, no
/// table read) says whether anything was committed, and only then are the rows changed since read, through
/// the `updated_at` index.
struct LogFollower {
    let filter: LogFilter
    let printer: LogPrinter
    let startedAt: Date

    /// How often the store is asked whether anything changed.
    static let interval: Duration = .milliseconds(250)
    /// How far back each read starts: a writer stamps rows with the time it took before its commit, which can
    /// land after a later stamp was already read (a write waits for another one). Rows seen in this overlap are
    /// recognised by (id, `updated_at`) and not printed twice.
    static let overlap: TimeInterval = 2

    func run(_ store: any ProducerStore, alreadyPrinted: [LogEntry]) async throws(StoreError) {
        var from = startedAt.addingTimeInterval(-Self.overlap)
        var seen: [DeliveryID: Date] = [:]
        for entry in alreadyPrinted where entry.updatedAt >= from { seen[entry.id] = entry.updatedAt }
        var lastChange: Int64?
        let stops = Invocation.current.stops
        while stops.count == 0 {
            let change = try await store.changeCount()
            if change != lastChange {
                lastChange = change
                var newest = from
                var page = try await store.changedLog(filter, from: from, after: nil, limit: 1000)
                while !page.isEmpty && stops.count == 0 {
                    let fresh = page.filter { seen[$0.id] != $0.updatedAt }
                    try await printer.print(fresh, store)
                    for entry in page {
                        seen[entry.id] = entry.updatedAt
                        newest = max(newest, entry.updatedAt)
                    }
                    guard page.count == 1000, let last = page.last else { break }
                    page = try await store.changedLog(filter, from: last.updatedAt, after: last.id, limit: 1000)
                }
                from = max(from, newest.addingTimeInterval(-Self.overlap))
                seen = seen.filter { $0.value >= from }
            }
            try? await Task.sleep(for: Self.interval)
        }
    }
}
