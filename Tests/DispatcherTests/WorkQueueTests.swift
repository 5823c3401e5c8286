import APNs
import Foundation
import QueueModel
import Testing

@testable import Dispatcher

/// The worker's in-memory queue: single sends go ahead of queued bulk work, in claim order, and the rest keeps
/// its order, whether the slots already sent can take them or the queue has to grow.
@Suite struct WorkQueueTests {
    private func job(_ id: Int64, _ kind: CampaignKind) -> DeliveryJob {
        DeliveryJob(
            id: DeliveryID(id), campaignID: CampaignID(kind == .single ? 1 : 2), kind: kind,
            token: try! DeviceToken(String(format: "%064llx", id)), environment: .production,
            content: try! NotificationContent(bundleID: "com.example.app", payload: Payload(json: #"{"aps":{}}"#)),
            attempts: 0, deviceRegisteredAt: nil, leasedUntil: Date(timeIntervalSince1970: 0))
    }

    private func drain(_ state: inout WorkQueue) -> [Int64] {
        var ids: [Int64] = []
        while let next = state.next() { ids.append(next.id.rawValue) }
        return ids
    }

    @Test func singlesGoAheadOfQueuedBulkWorkInClaimOrder() {
        var state = WorkQueue()
        state.enqueueClaimed((1...6).map { job($0, .bulk) })
        #expect(state.next()?.id.rawValue == 1)
        #expect(state.next()?.id.rawValue == 2)
        // Two slots were sent: two singles take them; a third does not fit and the queue is rebuilt.
        state.requeueFront([job(10, .single), job(11, .single)])
        #expect(state.queued == 6)
        state.requeueFront([job(20, .single)])
        state.enqueueClaimed([job(7, .bulk), job(30, .single)])
        #expect(drain(&state) == [30, 20, 10, 11, 3, 4, 5, 6, 7])
        #expect(state.queued == 0)
    }
}
