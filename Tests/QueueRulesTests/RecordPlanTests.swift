import APNs
import Foundation
import QueueModel
import QueueRules
import Testing

/// What a batch of results does once the engine knows which rows it wrote, without a database.
@Suite struct RecordPlanTests {
    let later = Jobs.now.addingTimeInterval(60)

    @Test func mixedBatchMovesCountersAndCollectsOutcomesAndEvents() {
        let results: [DeliveryResult] = [
            .accepted(Jobs.job(1), apnsID: nil),
            .retry(Jobs.job(2), at: later, httpStatus: 503, reason: .serviceUnavailable),
            DeliveryResult(Jobs.job(3), disposition: .failed, reason: .expired, countsAsAttempt: false),
            .unregistered(Jobs.job(4, campaign: 2, token: 4), reason: .unregistered, timestamp: 5),
            .badToken(Jobs.job(5, campaign: 2, token: nil), reason: .badDeviceToken),
            .accepted(Jobs.job(6, campaign: 2), apnsID: nil),
            .badToken(Jobs.job(7, campaign: 2, token: 7), reason: .badDeviceToken),
        ]
        // 4 was cancelled in flight; 6 was ignored (already final); the others were pending.
        let plan = RecordPlan(results, replaced: [.pending, .pending, .pending, .cancelled, .pending, nil, .pending])

        #expect(plan.report.applied == 6)
        #expect(plan.report.ignored == 1)
        #expect(plan.deltas[1] == CampaignCounters(pending: -2, accepted: 1, failed: 1))
        #expect(plan.deltas[2] == CampaignCounters(pending: -2, rejected: 2, unregistered: 1, cancelled: -1))
        #expect(plan.campaigns == [1, 2])
        #expect(
            plan.outcomes == [
                OutcomeKey(status: "accepted", reason: "none"): OutcomeCount(count: 1, requests: 1),
                OutcomeKey(status: "retry", reason: "ServiceUnavailable"): OutcomeCount(count: 1, requests: 1),
                OutcomeKey(status: "failed", reason: "Expired"): OutcomeCount(count: 1, requests: 0),
                OutcomeKey(status: "unregistered", reason: "Unregistered"): OutcomeCount(count: 1, requests: 1),
                OutcomeKey(status: "rejected", reason: "BadDeviceToken"): OutcomeCount(count: 2, requests: 2),
            ])
        // The same outcomes, per campaign: an ignored result (6) counts in neither.
        func campaign(_ id: Int64, _ status: String, _ reason: String) -> CampaignOutcomeKey {
            CampaignOutcomeKey(campaign: id, outcome: OutcomeKey(status: status, reason: reason))
        }
        #expect(
            plan.campaignOutcomes == [
                campaign(1, "accepted", "none"): OutcomeCount(count: 1, requests: 1),
                campaign(1, "retry", "ServiceUnavailable"): OutcomeCount(count: 1, requests: 1),
                campaign(1, "failed", "Expired"): OutcomeCount(count: 1, requests: 0),
                campaign(2, "unregistered", "Unregistered"): OutcomeCount(count: 1, requests: 1),
                campaign(2, "rejected", "BadDeviceToken"): OutcomeCount(count: 2, requests: 2),
            ])
        #expect(plan.failed == [3])
        // A broadcast's answer has no token to deactivate.
        #expect(plan.deactivations.map(\.deliveryID.rawValue) == [4, 7])
    }

    @Test func aRetryOverPendingMovesNoCounter() {
        let plan = RecordPlan([.retry(Jobs.job(1), at: later)], replaced: [.pending])
        #expect(plan.deltas.isEmpty)
        #expect(plan.report.applied == 1)
    }

    @Test func anEmptyPlanDoesNothing() {
        let plan = RecordPlan([.accepted(Jobs.job(1), apnsID: nil)], replaced: [nil])
        #expect(plan.deltas.isEmpty && plan.outcomes.isEmpty && plan.failed.isEmpty && plan.deactivations.isEmpty)
        #expect(plan.campaignOutcomes.isEmpty)
        #expect(plan.report.ignored == 1)
    }

    @Test func whatARowThatWasNotPendingLetsAResultReplace() {
        let accepted = DeliveryResult.accepted(Jobs.job(1), apnsID: nil)
        let retry = DeliveryResult.retry(Jobs.job(1), at: later)
        let me = WorkerID(1)
        func row(_ status: DeliveryStatus, campaign: Int64 = 1, holder: Int64? = nil) -> RecordPlan.Row {
            RecordPlan.Row(campaign: campaign, status: status, holder: holder)
        }
        #expect(RecordPlan.replaceable(accepted, row: nil, by: me) == nil)
        #expect(RecordPlan.replaceable(accepted, row: row(.pending, campaign: 2), by: me) == nil)
        #expect(RecordPlan.replaceable(accepted, row: row(.cancelled), by: me) == .cancelled)
        #expect(RecordPlan.replaceable(accepted, row: row(.accepted), by: me) == nil)
        // A retry of a row another worker took over is the holder's to decide; a final answer is written.
        #expect(RecordPlan.replaceable(retry, row: row(.pending, holder: 2), by: me) == nil)
        #expect(RecordPlan.replaceable(retry, row: row(.pending, holder: 1), by: me) == .pending)
        #expect(RecordPlan.replaceable(retry, row: row(.pending, holder: 2), by: nil) == .pending)
        #expect(RecordPlan.replaceable(accepted, row: row(.pending, holder: 2), by: me) == .pending)
        #expect(RecordPlan.replaceable(retry, row: row(.cancelled), by: me) == nil)
    }
}
