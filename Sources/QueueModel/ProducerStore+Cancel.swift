import Foundation

extension ProducerStore {
    /// Cancels a campaign so that nothing of it leaves after this returns, except requests already written to
    /// APNs: every live worker stops sending it and says what it had on the wire (within its cancel poll, 100 ms);
    /// one that does not answer within `waitUpTo` is counted as unacknowledged. `staleAfter` is the lease: a
    /// worker whose heartbeat is older is not waited for.
    public func cancel(_ id: CampaignID, staleAfter: Duration, waitUpTo: TimeInterval) async throws(StoreError)
        -> CancelReport
    {
        let request = try await requestCancel(id, now: Date())
        var waiting: [WorkerID] = []
        if let request {
            let deadline = Date().addingTimeInterval(waitUpTo)
            while true {
                waiting = try await workersYetToAcknowledge(request, now: Date(), staleAfter: staleAfter)
                if waiting.isEmpty || Date() >= deadline { break }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        return try await finishCancel(id, request: request, unacknowledged: waiting.count, now: Date())
    }
}
