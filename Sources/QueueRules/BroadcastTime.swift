import Foundation
import QueueModel

/// A broadcast goes out at once: a time to come is refused by either engine before anything is written (a time
/// past, or none, is now).
package enum BroadcastTime {
    /// The refusal of a broadcast scheduled at `at` when it is `now` (milliseconds, as stored); nil when it may go.
    package static func refusal(scheduledAt at: Date?, now: Int64) -> StoreError? {
        guard let at, at.storeMilliseconds > now else { return nil }
        return .invalidCampaign("a broadcast is sent now: leave out the time")
    }
}
