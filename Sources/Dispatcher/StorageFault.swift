import Foundation
import QueueModel
import Threads

/// A database write failed with a fault that may pass (locked, read-only, full disk, I/O error): the worker
/// stops sending, keeps the outcomes it holds, and tries again after a backoff (doubling from `first` to
/// `cap`, with jitter) until a write succeeds.
struct StorageFault {
    let since: Date
    private(set) var error: StoreError
    private(set) var nextTry: Date
    private(set) var tries = 1
    private var delay: Double
    private let cap: Double
    /// When the fault was last written to the log (it is repeated now and then, not at every try).
    var loggedAt: Date

    init(
        _ error: StoreError, now: Date, first: Duration = .milliseconds(100), cap: Duration = .seconds(5), unit: Double
    ) {
        since = now
        self.error = error
        delay = first.seconds
        self.cap = cap.seconds
        nextTry = now.addingTimeInterval(delay * (0.5 + unit / 2))
        loggedAt = now
    }

    /// Another try failed at `now`.
    mutating func failedAgain(_ error: StoreError, now: Date, unit: Double) {
        self.error = error
        tries += 1
        delay = min(cap, delay * 2)
        nextTry = now.addingTimeInterval(delay * (0.5 + unit / 2))
    }
}
