import APNs
import Foundation
import QueueModel
import QueueRules
import Testing

/// What a cancel makes of an answer the worker is about to record.
@Suite struct CancelTests {
    @Test func aRetryEndsCancelledKeepingTheAnswer() {
        let retry = DeliveryResult.retry(
            Jobs.job(1), at: Jobs.now, httpStatus: 503, reason: .serviceUnavailable, apnsID: "id")
        let cancelled = retry.whenCampaignCancelled
        #expect(cancelled.disposition == .cancelled)
        #expect(cancelled.reason == .campaignCancelled)
        #expect(cancelled.httpStatus == 503)
        #expect(cancelled.apnsID == "id")
        #expect(cancelled.countsAsAttempt)
    }

    @Test func aFinalAnswerStands() {
        let unregistered = DeliveryResult.unregistered(Jobs.job(1), reason: .unregistered, timestamp: 1)
        #expect(unregistered.whenCampaignCancelled == unregistered)
        #expect(DeliveryStatus.cancelled.accepts(unregistered.disposition))
    }

    @Test func theStoresStopWithTheSameStatusAndReason() {
        #expect(CampaignCancel.stopped.status == .cancelled)
        #expect(CampaignCancel.stoppedSQL.contains("status = 'cancelled', reason = 'CampaignCancelled'"))
    }
}
