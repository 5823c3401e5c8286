import Testing

@testable import HTTP2Transport

/// The throttle (token bucket + send window), with simulated time: no sleeping.
@Suite struct ThrottleModelTests {
    static let second: UInt64 = 1_000_000_000

    @Test(arguments: [
        (0, 0, 0, 0), (1, 1, 1, 1), (7, 1, 1, 1), (100, 1, 3, 1), (101, 2, 3, 2), (200, 2, 5, 2), (500, 2, 13, 3),
        (1000, 2, 25, 5), (1001, 3, 25, 5), (1500, 3, 37, 8), (10_000, 20, 245, 49), (12_345, 25, 303, 61),
    ])
    func slackBurstAndStep(rate: Int, slack: Int, burst: Int, step: Int) {
        #expect(Throttle.slack(ratePerSecond: rate) == slack)
        #expect(Throttle.burst(ratePerSecond: rate) == burst)
        #expect(Throttle.step(ratePerSecond: rate) == step)
        let throttle = Throttle(ratePerSecond: rate, now: 0)
        if rate == 0 {
            #expect(throttle.isUnlimited)
            #expect(throttle.maximumPerSecond == nil)
        } else {
            #expect(Throttle.pacedRate(ratePerSecond: rate) == rate - rate / 50)
            #expect(throttle.maximumPerSecond == min(rate, rate - rate / 50 + slack))
            #expect(throttle.maximumPerSecond! <= Int((Double(rate) * 1.01).rounded(.down)) + 1)
        }
    }

    /// Arrival patterns a caller can produce: greedy (always asking), steady below/above the rate, bursts.
    enum Pattern: String, CaseIterable, Sendable {
        case greedy, halfRate, doubleRate, burstsEvery250ms, idleThenGreedy
    }

    /// How late the simulated loop wakes after the wait it asked for.
    enum Lateness: String, CaseIterable, Sendable {
        /// Exactly on time.
        case none
        /// A loaded 2-core machine: 0–3 ms on most wake-ups, 10–20 ms on one in fifty.
        case loaded

        /// Deterministic (a linear congruential generator): runs are repeatable.
        func delay(_ random: inout UInt64) -> UInt64 {
            guard self == .loaded else { return 0 }
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let draw = random >> 33
            if draw % 50 == 0 { return 10_000_000 + draw % 10_000_000 }
            return draw % 3_000_000
        }
    }

    /// Simulates `seconds` of requests against a throttle; returns the send times. Each wake-up admits what
    /// the throttle allows (sent at once), then sleeps until its next grant, waking `lateness` late.
    static func simulate(_ throttle: Throttle, pattern: Pattern, lateness: Lateness = .none, seconds: UInt64 = 10)
        -> [UInt64]
    {
        var throttle = throttle
        let rate = throttle.ratePerSecond
        let start: UInt64 = 5 * second  // the throttle was made at `start`: any offset, the clock is arbitrary
        let step = max(1_000, second / UInt64(rate) / 7)  // several polls per token interval while idle
        var random: UInt64 = 42
        var sends: [UInt64] = []
        var waiting = 0
        var nextArrival = start
        let arrivalGap: UInt64
        switch pattern {
        case .greedy, .idleThenGreedy: arrivalGap = 0
        case .halfRate: arrivalGap = 2 * second / UInt64(rate)
        case .doubleRate: arrivalGap = second / UInt64(rate) / 2
        case .burstsEvery250ms: arrivalGap = second / 4
        }
        var now = start
        while now < start + seconds * second {
            switch pattern {
            case .greedy: waiting = 1
            case .idleThenGreedy: waiting = now >= start + 3 * second ? 1 : 0
            case .burstsEvery250ms:
                while nextArrival <= now {
                    waiting += rate / 2
                    nextArrival += arrivalGap
                }
            case .halfRate, .doubleRate:
                while nextArrival <= now {
                    waiting += 1
                    nextArrival += max(1, arrivalGap)
                }
            }
            while waiting > 0, throttle.admit(now: now) {
                throttle.recordSend(at: now)
                sends.append(now)
                if pattern != .greedy && pattern != .idleThenGreedy { waiting -= 1 }
            }
            // The loop sleeps until the next grant (or polls while nothing waits), then wakes late.
            let wait = waiting > 0 ? throttle.wait(now: now) : step
            now += max(1, wait == 0 ? step : wait) + lateness.delay(&random)
        }
        return sends
    }

    /// The most sends in any closed one-second window [t, t + 1 s].
    static func maxInAnySecond(_ times: [UInt64]) -> Int {
        var best = 0
        var end = 0
        for start in times.indices {
            while end < times.count && times[end] <= times[start] + second { end += 1 }
            best = max(best, end - start)
        }
        return best
    }

    @Test(arguments: [1, 7, 100, 200, 1500, 10_000], Pattern.allCases)
    func slidingWindowNeverExceedsRatePlusOnePercent(rate: Int, pattern: Pattern) {
        for lateness in Lateness.allCases {
            let throttle = Throttle(ratePerSecond: rate, now: 5 * Self.second)
            let sends = Self.simulate(throttle, pattern: pattern, lateness: lateness)
            let bound = Int((Double(rate) * 1.01).rounded(.down)) + 1
            let worst = Self.maxInAnySecond(sends)
            #expect(worst <= bound, "rate \(rate) \(pattern) \(lateness): \(worst) in one second, bound \(bound)")
            #expect(worst <= throttle.maximumPerSecond!)
            // And it is not needlessly slow: a greedy caller gets the paced rate, also when the loop wakes late.
            if pattern == .greedy {
                let paced = Throttle.pacedRate(ratePerSecond: rate)
                let floor = lateness == .none ? paced * 10 : paced * 10 * 99 / 100
                #expect(sends.count >= floor, "rate \(rate) \(lateness): only \(sends.count) in 10 s")
                #expect(sends.count <= paced * 10 + Throttle.burst(ratePerSecond: rate) + 1)
            }
            // (Up to 20 ms of arrivals may still wait for the loop's last, late wake-up.)
            if pattern == .halfRate { #expect(sends.count >= rate * 5 - 2 - (lateness == .loaded ? rate / 50 : 0)) }
        }
    }

    /// The rule: at any rate from 1 to 1500, no sliding second holds more than the rate, whatever the
    /// callers and however late the loop wakes (at 4/s the slack once let a second hold 5).
    @Test(arguments: [1, 2, 3, 4, 5, 6, 10, 25, 49, 50, 99, 100, 101, 300, 499, 500, 999, 1000, 1499, 1500])
    func noSlidingSecondEverHoldsMoreThanTheRate(rate: Int) {
        for pattern in Pattern.allCases {
            for lateness in Lateness.allCases {
                let throttle = Throttle(ratePerSecond: rate, now: 5 * Self.second)
                let sends = Self.simulate(throttle, pattern: pattern, lateness: lateness)
                let worst = Self.maxInAnySecond(sends)
                #expect(worst <= rate, "rate \(rate) \(pattern) \(lateness): \(worst) in one second")
                #expect(throttle.maximumPerSecond! <= rate)
            }
        }
    }

    @Test func aBucketOnlyAsLargeAsTheSlackLosesTheRateWhenTheLoopWakesLate() {
        // Why the bucket holds 25 ms: with the 3 tokens that bounded the second on their own, the same late
        // wake-ups cost more than the 3% the pool may lose.
        let rate = 1500
        let small = Self.simulate(
            Throttle(ratePerSecond: rate, burst: Throttle.slack(ratePerSecond: rate), now: 5 * Self.second),
            pattern: .greedy, lateness: .loaded)
        let standard = Self.simulate(
            Throttle(ratePerSecond: rate, now: 5 * Self.second), pattern: .greedy, lateness: .loaded)
        #expect(small.count < rate * 10 * 97 / 100, "\(small.count)")
        #expect(standard.count >= Throttle.pacedRate(ratePerSecond: rate) * 10 * 99 / 100, "\(standard.count)")
    }

    @Test func requestsAdmittedAndNotYetSentCountAgainstTheWindow() {
        // libcurl holds everything back for 2 s: the buckets would grant ~200, the window only its limit.
        var throttle = Throttle(ratePerSecond: 100, now: 0)
        let limit = throttle.maximumPerSecond!
        var admitted = 0
        var now: UInt64 = 0
        while now < 2 * Self.second {
            while throttle.admit(now: now, unsent: admitted) { admitted += 1 }
            now += 1_000_000
        }
        #expect(admitted == limit)
        // Then they all go at once; the next one may go only once they have left the window.
        for _ in 0..<admitted { throttle.recordSend(at: now) }
        let onTheEdge = throttle.admit(now: now + Self.second)
        let wait = throttle.wait(now: now + Self.second)
        let after = throttle.admit(now: now + Self.second + 1)
        #expect(!onTheEdge)
        #expect(wait == 1)
        #expect(after)
    }

    @Test func aNewThrottleOpensWithItsSlackNotItsBurst() {
        var throttle = Throttle(ratePerSecond: 1500, now: 0)
        var admitted = 0
        while throttle.admit(now: 0, unsent: admitted) { admitted += 1 }
        #expect(admitted == Throttle.slack(ratePerSecond: 1500))
        // After a long wait the bucket is full, and one wake-up still sends only a step of it.
        var later = 0
        while throttle.admit(now: Self.second, unsent: later) { later += 1 }
        #expect(later == Throttle.step(ratePerSecond: 1500))
    }

    @Test func aLateLoopCatchesUpOverTheNextWakeUpsAtTwiceThePace() {
        var throttle = Throttle(ratePerSecond: 1500, now: 0)
        var sends: [UInt64] = []
        let owed = Throttle.burst(ratePerSecond: 1500)
        var now = Self.second  // 1 s late: the pacing bucket is full
        while sends.count < owed {
            while throttle.admit(now: now) {
                throttle.recordSend(at: now)
                sends.append(now)
            }
            now += throttle.wait(now: now)
        }
        // A step at once, the rest at up to twice the pace: (37 − 8) / 2940 per s ≈ 9.9 ms, not one burst.
        let spread = sends[owed - 1] - sends[0]
        let fastest =
            UInt64(owed - Throttle.step(ratePerSecond: 1500) - 1) * Self.second
            / UInt64(2 * Throttle.pacedRate(ratePerSecond: 1500))
        #expect(spread >= fastest && spread < 2 * fastest, "\(spread) ns")
        #expect(
            Dictionary(grouping: sends, by: { $0 }).values.map(\.count).max()! <= Throttle.step(ratePerSecond: 1500))
    }

    @Test func theWindowIsExactToTheNanosecond() {
        var window = SendWindow(limit: 3)
        for time: UInt64 in [100, 200, 300] { window.record(time) }
        let full = window.room(now: 300)
        let untilRoom = window.nextRoom(now: 300)
        let atTheEdge = window.room(now: Self.second + 100)  // [now − 1 s, now] is closed: 100 is still in it
        let past = window.room(now: Self.second + 101)
        let noWait = window.nextRoom(now: Self.second + 101)
        let empty = window.room(now: Self.second + 301)
        #expect(full == 0)
        #expect(untilRoom == Self.second + 101 - 300)
        #expect(atTheEdge == 0)
        #expect(past == 1)
        #expect(noWait == 0)
        #expect(empty == 3)
    }

    @Test func aWindowKeepsTheNewestSendsWhenLibcurlSendsMoreThanItsLimit() {
        var window = SendWindow(limit: 2)
        for time: UInt64 in [10, 20, 30] { window.record(time) }
        let room = window.room(now: 30)
        let untilRoom = window.nextRoom(now: 30)  // 10 was pushed out; 20 is the oldest kept
        window.record(5)  // earlier than the newest: counts as the newest
        let afterLate = window.nextRoom(now: 30)
        #expect(room == 0)
        #expect(untilRoom == Self.second + 21 - 30)
        #expect(afterLate == Self.second + 31 - 30)
    }

    @Test func nextAvailableIsExactToTheNanosecond() {
        var bucket = TokenBucket(ratePerSecond: 1500, capacity: 3, now: 0)
        var taken = 0
        while bucket.take(now: 0) { taken += 1 }
        #expect(taken == 3)
        let wait = bucket.nextAvailable(now: 0)
        #expect(wait == 666_667)  // ceil(10⁹ / 1500)
        let early = bucket.take(now: wait - 1)
        let onTime = bucket.take(now: wait)
        let next = bucket.nextAvailable(now: wait)
        #expect(!early)
        #expect(onTime)
        #expect(next > 0)
    }

    @Test func refillStopsAtCapacityAfterLongIdle() {
        var bucket = TokenBucket(ratePerSecond: 200, capacity: 2, now: 0)
        let available = bucket.available(now: 3_600 * Self.second)
        #expect(available == 2)
        var taken = 0
        while bucket.take(now: 3_600 * Self.second) { taken += 1 }
        #expect(taken == 2)
    }

    @Test func timeGoingBackwardsGrantsNothingExtra() {
        var bucket = TokenBucket(ratePerSecond: 100, capacity: 2, now: 10 * Self.second)
        let first = bucket.take(now: 10 * Self.second)
        let second = bucket.take(now: 10 * Self.second)
        #expect(first && second)
        let earlier = bucket.take(now: 5 * Self.second)
        let wait = bucket.nextAvailable(now: 5 * Self.second)
        #expect(!earlier)
        #expect(wait > 0)
    }

    @Test func zeroRateIsUnlimited() {
        var throttle = Throttle(ratePerSecond: 0, now: 0)
        #expect(throttle.isUnlimited)
        #expect(throttle.maximumPerSecond == nil)
        var granted = 0
        for _ in 0..<100_000 where throttle.admit(now: 0, unsent: granted) { granted += 1 }
        let wait = throttle.wait(now: 0)
        #expect(granted == 100_000)
        #expect(wait == 0)
        #expect(TokenBucket.unlimited.isUnlimited)
    }
}
