import Foundation
import QueueModel
import QueueRules
import Testing

/// A broadcast goes out at once: only a time to come is refused.
@Suite struct BroadcastTimeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func noTimeOrATimePastIsNow() {
        #expect(BroadcastTime.refusal(scheduledAt: nil, now: Self.now.storeMilliseconds) == nil)
        #expect(BroadcastTime.refusal(scheduledAt: Self.now, now: Self.now.storeMilliseconds) == nil)
        #expect(
            BroadcastTime.refusal(scheduledAt: Self.now.addingTimeInterval(-60), now: Self.now.storeMilliseconds) == nil
        )
    }

    @Test func aTimeToComeIsRefused() {
        let refusal = BroadcastTime.refusal(
            scheduledAt: Self.now.addingTimeInterval(0.002), now: Self.now.storeMilliseconds)
        #expect(refusal == .invalidCampaign("a broadcast is sent now: leave out the time"))
    }
}
