import Testing

@testable import HTTP2Transport

/// Where a pool's requests go while its connections fail and come back, on simulated time.
@Suite struct PoolRoutingTests {
    static let second: UInt64 = 1_000_000_000

    func routing(_ count: Int = 2) -> PoolRouting {
        PoolRouting(count: count, base: .seconds(1), cap: .seconds(8))
    }

    @Test func readySlotsShareTheLoadInTurn() {
        var pool = routing(3)
        #expect(pool.pick(loads: [0, 0, 0], now: 0) == 0)
        #expect(pool.pick(loads: [0, 0, 0], now: 0) == 1)
        #expect(pool.pick(loads: [0, 0, 0], now: 0) == 2)
        #expect(pool.pick(loads: [5, 1, 3], now: 0) == 1)
    }

    @Test func aSlotThatCannotConnectPausesThenTakesOneProbe() {
        var pool = routing()
        pool.connectFailed(1, now: 0, unit: 0)
        #expect(pool.slots[1].phase == .paused(until: Self.second))
        #expect(pool.slots[1].state(socketOpen: false) == .backoff)
        for _ in 0..<4 { #expect(pool.pick(loads: [9, 0], now: Self.second / 2) == 0, "paused: left out") }
        #expect(pool.pick(loads: [9, 0], now: Self.second) == 1, "the pause is over: the probe")
        #expect(pool.slots[1].phase == .probing)
        #expect(pool.slots[1].state(socketOpen: false) == .connecting)
        #expect(pool.pick(loads: [9, 0], now: Self.second) == 0, "one probe at a time")
        pool.reached(1, now: Self.second)
        #expect(pool.slots[1].isReady)
        #expect(pool.pick(loads: [9, 0], now: Self.second) == 1)
    }

    @Test func pausesGrowToTheCapAndNeverEndTheSlot() {
        var pool = routing()
        var now: UInt64 = 0
        var pauses: [UInt64] = []
        for _ in 0..<10 {
            pool.connectFailed(1, now: now, unit: 1)
            guard case .paused(let until) = pool.slots[1].phase else {
                Issue.record("not paused")
                return
            }
            pauses.append((until - now) / Self.second)
            now = until
            #expect(pool.pick(loads: [0, 0], now: now) == 1)
        }
        #expect(pauses == [1, 3, 8, 8, 8, 8, 8, 8, 8, 8])
        #expect(pool.slots[1].failures == 10)
    }

    @Test func failuresWithinAPauseDoNotLengthenIt() {
        var pool = routing()
        pool.connectFailed(0, now: 0, unit: 1)
        pool.connectFailed(0, now: Self.second / 2, unit: 1)
        #expect(pool.slots[0].phase == .paused(until: Self.second))
        #expect(pool.slots[0].failures == 1)
    }

    @Test func theFirstAnswerAfterAnOutageBringsEverySlotBack() {
        var pool = routing(3)
        for _ in 0..<6 { for slot in 0..<3 { pool.connectFailed(slot, now: pool.pauseEnd(slot), unit: 1) } }
        let now = pool.pauseEnd(0) - Self.second
        #expect(pool.pick(loads: [0, 0, 0], now: now) == 0, "nothing ready: the least loaded; the worker paces")
        pool.reached(0, now: now)
        #expect(pool.pick(loads: [1, 0, 0], now: now) == 1, "the outage paused it: it probes at once")
        #expect(pool.pick(loads: [1, 1, 0], now: now) == 2)
    }

    @Test func aSlotsOwnFaultWaitsOutItsPauseWhileTheOthersWork() {
        var pool = routing()
        pool.connectFailed(1, now: 0, unit: 1)
        #expect(pool.slots[1].failedInOutage == false, "slot 0 was ready")
        pool.reached(0, now: Self.second / 2)
        #expect(pool.pick(loads: [5, 0], now: Self.second / 2) == 0)
        #expect(pool.pick(loads: [5, 0], now: Self.second) == 1)
    }

    @Test func aRequestThatCouldNotConnectGoesToAnotherReadySlotOrNowhere() {
        var pool = routing(3)
        pool.connectFailed(0, now: 0, unit: 0)
        #expect(pool.pick(loads: [0, 4, 2], now: 0, excluding: [0]) == 2)
        pool.connectFailed(2, now: 0, unit: 0)
        #expect(pool.pick(loads: [0, 4, 2], now: 0, excluding: [0, 2]) == 1)
        pool.connectFailed(1, now: 0, unit: 0)
        #expect(pool.pick(loads: [0, 0, 0], now: 0, excluding: [0, 1, 2]) == nil)
        #expect(pool.pick(loads: [0, 3, 1], now: 0) == 0, "nothing ready: the least loaded; the worker paces")
    }

    @Test func anAbandonedProbeLetsTheNextRequestProbe() {
        var pool = routing()
        pool.connectFailed(1, now: 0, unit: 0)
        #expect(pool.pick(loads: [3, 0], now: Self.second) == 1)
        pool.abandoned(1, now: Self.second)
        #expect(pool.pick(loads: [3, 0], now: Self.second) == 1)
    }
}

extension PoolRouting {
    /// When `slot`'s pause ends (tests).
    func pauseEnd(_ slot: Int) -> UInt64 {
        if case .paused(let until) = slots[slot].phase { return until }
        return 0
    }
}
