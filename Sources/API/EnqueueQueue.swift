import Foundation
import QueueModel

/// Groups the enqueues of concurrent API requests into shared transactions: while one group is being written,
/// the requests that arrive wait and go together in the next. Under load one commit serves many requests; a
/// lone request is written at once, with no added delay.
actor EnqueueQueue {
    /// The most requests written in one transaction.
    static let maximumRequests = 512
    /// A request with more specs than this (a batch) is written alone: grouped requests each need a savepoint,
    /// and SQLite's cost per statement grows with what its savepoint holds.
    static let groupedSpecs = 16

    private let store: any ProducerStore
    private var waiting:
        [(request: EnqueueRequest, continuation: CheckedContinuation<Result<Enqueued, StoreError>, Never>)] = []
    private var writing = false

    init(store: any ProducerStore) {
        self.store = store
    }

    /// Writes `request` with whatever else is waiting; its own result.
    func submit(_ request: EnqueueRequest) async -> Result<Enqueued, StoreError> {
        await withCheckedContinuation { continuation in
            waiting.append((request, continuation))
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let alone = { (index: Int) in self.waiting[index].request.specs.count > Self.groupedSpecs }
            var count = 1
            if !alone(0) {
                while count < waiting.count, count < Self.maximumRequests, !alone(count) { count += 1 }
            }
            let group = Array(waiting.prefix(count))
            waiting.removeFirst(count)
            let results: [Result<Enqueued, StoreError>]
            do {
                results = try await store.enqueue(group.map(\.request), now: Date())
            } catch {
                results = Array(repeating: .failure(error), count: group.count)
            }
            for (item, result) in zip(group, results) { item.continuation.resume(returning: result) }
        }
        writing = false
    }
}
