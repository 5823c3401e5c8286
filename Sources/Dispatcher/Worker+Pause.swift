import Foundation
import QueueModel

extension Worker {
    /// Paused campaigns (polled with cancels): what this worker holds of them and has not sent goes back to the
    /// store, which parks it until the campaign is resumed; requests already handed to a connection finish and are
    /// recorded as usual.
    func pollPauses(_ state: inout RunState, now: Date) async throws {
        guard let paused = try await guarded(&state, { [store] in try await store.pausedCampaigns() }) else { return }
        let ids = Set(paused.map(\.rawValue))
        let newlyPaused = ids.subtracting(state.paused)
        state.paused = ids
        guard !ids.isEmpty else { return }
        var taken: [DeliveryID] = []
        state.dropQueued { job in
            guard ids.contains(job.campaignID.rawValue) else { return false }
            taken.append(job.id)
            return true
        }
        if !taken.isEmpty {
            let (released, id) = (taken, state.id)
            guard try await guarded(&state, { [store] in try await store.release(released, by: id, now: now) }) != nil
            else { return }
        }
        for campaign in newlyPaused.sorted() {
            logger.info("worker.campaign_paused", ("campaign.id", String(campaign)), ("released", String(taken.count)))
        }
    }
}
