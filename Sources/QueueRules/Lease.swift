import QueueModel

/// A claim's lease on its rows, and the due times that stand for "not due": a row leased by a worker is due
/// again only when the worker records or releases it, or another worker takes it over.
package struct Lease: Hashable, Sendable {
    /// `next_attempt_at` of a delivery leased by a worker: never due while leased; the lease ends by a record,
    /// a release, or a takeover after its owner stopped heartbeating. (9999-12-31T23:59:59.999Z)
    package static let heldByOwner: Int64 = 253_402_300_799_999

    /// The due time of a paused campaign's pending deliveries: after every real time, before `heldByOwner`.
    package static let pausedUntilResumed: Int64 = heldByOwner - 1

    /// `leased_until`: when the lease ends for a claim without a worker; informational for a worker's.
    package var until: Int64
    /// The rows' new `next_attempt_at`: the lease's end without a worker, `heldByOwner` with one.
    package var dueAgain: Int64

    /// The lease of a claim at `now` (milliseconds) for `duration`, by `worker` (nil: tests and tools).
    package init(now: Int64, duration: Duration, worker: WorkerID?) {
        until = now + Milliseconds.from(duration)
        dueAgain = worker == nil ? until : Self.heldByOwner
    }

    /// Whether a retry recorded by `worker` must leave alone a row that `holder` leases: another worker took it
    /// over, and the holder decides. A final answer is written whoever holds the row.
    package static func yieldsRetry(by worker: WorkerID?, heldBy holder: Int64?) -> Bool {
        guard let worker, let holder else { return false }
        return holder != worker.rawValue
    }
}
