import QueueModel
import QueueRules
import Testing

/// Leases and takeovers, on an injected clock (milliseconds).
@Suite struct LeaseTests {
    @Test func aWorkersLeaseIsHeldUntilItEnds() {
        let lease = Lease(now: 1_000, duration: .seconds(30), worker: WorkerID(1))
        #expect(lease.until == 31_000)
        #expect(lease.dueAgain == Lease.heldByOwner)
    }

    @Test func aLeaseWithoutWorkerExpires() {
        let lease = Lease(now: 1_000, duration: .milliseconds(1500), worker: nil)
        #expect(lease.until == 2_500)
        #expect(lease.dueAgain == 2_500)
    }

    @Test func parkedRowsAreNeverDueAndComeBeforeHeldOnes() {
        #expect(Lease.pausedUntilResumed < Lease.heldByOwner)
        // Later than any real time a claim uses (year 9999).
        #expect(Lease.pausedUntilResumed > 253_402_300_000_000)
    }

    @Test func onlyAnotherWorkersHoldStopsARetry() {
        #expect(Lease.yieldsRetry(by: WorkerID(1), heldBy: 2))
        #expect(!Lease.yieldsRetry(by: WorkerID(1), heldBy: 1))
        #expect(!Lease.yieldsRetry(by: WorkerID(1), heldBy: nil))
        #expect(!Lease.yieldsRetry(by: nil, heldBy: 2))
    }

    @Test func aWorkerIsTakenOverOnlyOnceItsHeartbeatIsStale() {
        let takeover = Takeover(staleAfter: .seconds(10))
        #expect(takeover.staleBefore(now: 100_000) == 90_000)
        #expect(!takeover.isStale(heartbeat: 90_000, now: 100_000))
        #expect(takeover.isStale(heartbeat: 89_999, now: 100_000))
        // The first moment it may be taken over, and not a millisecond before.
        let at = takeover.date(heartbeat: 90_000)
        #expect(takeover.isStale(heartbeat: 90_000, now: at))
        #expect(!takeover.isStale(heartbeat: 90_000, now: at - 1))
    }
}
