import Testing
@testable import HTTP2Transport

/// The throttle, with simulated time: no sleeping.
@Suite struct TokenBucketTests {
    static let second: UInt64 = 1_000_000_000

    @Test(arguments: [(0, 0, 0), (1, 1, 1), (7, 1, 1), (100, 1, 1), (101, 2, 2), (200, 2, 2), (500, 2, 5), (1000, 2, 10),
                      (1001, 3, 11), (1500, 3, 15), (10_000, 20, 100), (12_345, 25, 124)])
    func capacities(rate: Int, defaultCapacity: Int, maximumCapacity: Int) {
        #expect(TokenBucket.defaultCapacity(ratePerSecond: rate) == defaultCapacity)
        #expect(TokenBucket.maximumCapacity(ratePerSecond: rate) == maximumCapacity)
        #expect(TokenBucket(ratePerSecond: rate, now: 0).capacity == defaultCapacity)
        if rate > 0 {
            let bound = Int((Double(rate) * 1.01).rounded(.down)) + 1
            #expect(TokenBucket(ratePerSecond: rate, now: 0).maximumPerSecond! <= bound)
            #expect(TokenBucket(ratePerSecond: rate, capacity: maximumCapacity, now: 0).maximumPerSecond! <= bound)
        }
    }

    /// Arrival patterns a caller can produce: greedy (always asking), steady below/above the rate, bursts.
    enum Pattern: String, CaseIterable, Sendable {
        case greedy, halfRate, doubleRate, burstsEvery250ms, idleThenGreedy
    }

    struct Run {
        var grants: [UInt64] = []
    }

    /// Simulates 10 seconds of requests against a bucket, polling at `step`; returns the grant times.
    static func simulate(rate: Int, capacity: Int, pattern: Pattern, seconds: UInt64 = 10) -> [UInt64] {
        let start: UInt64 = 5 * second  // any offset: the clock is arbitrary
        var bucket = TokenBucket(ratePerSecond: rate, capacity: capacity, now: start)
        let step = max(1_000, second / UInt64(rate) / 7)  // several polls per token interval
        var grants: [UInt64] = []
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
                while nextArrival <= now { waiting += rate / 2; nextArrival += arrivalGap }
            case .halfRate, .doubleRate:
                while nextArrival <= now { waiting += 1; nextArrival += max(1, arrivalGap) }
            }
            while waiting > 0, bucket.take(now: now) {
                grants.append(now)
                if pattern != .greedy && pattern != .idleThenGreedy { waiting -= 1 }
            }
            // The loop would sleep until the next token; take the smaller of that and our poll step.
            let wait = bucket.nextAvailable(now: now)
            now += max(1, min(step, wait == 0 ? step : wait))
        }
        return grants
    }

    /// The most grants in any closed one-second window [t, t + 1 s].
    static func maxInAnySecond(_ times: [UInt64]) -> Int {
        var best = 0
        var end = 0
        for start in times.indices {
            while end < times.count && times[end] <= times[start] + second { end += 1 }
            best = max(best, end - start)
        }
        return best
    }

    enum Capacity: String, CaseIterable, Sendable { case standard, maximum }

    @Test(arguments: [1, 7, 100, 200, 1500, 10_000], Pattern.allCases)
    func slidingWindowNeverExceedsRatePlusOnePercent(rate: Int, pattern: Pattern) {
        for policy in Capacity.allCases {
            let capacity = policy == .standard ? TokenBucket.defaultCapacity(ratePerSecond: rate)
                                               : TokenBucket.maximumCapacity(ratePerSecond: rate)
            let grants = Self.simulate(rate: rate, capacity: capacity, pattern: pattern)
            let bound = Int((Double(rate) * 1.01).rounded(.down)) + 1
            let worst = Self.maxInAnySecond(grants)
            #expect(worst <= bound, "rate \(rate) \(pattern) \(policy): \(worst) in one second, bound \(bound)")
            #expect(worst <= rate + capacity)
            // And it is not needlessly slow: a greedy caller gets the full rate.
            if pattern == .greedy {
                #expect(grants.count >= rate * 10, "rate \(rate): only \(grants.count) in 10 s")
                #expect(grants.count <= rate * 10 + capacity + 1)
            }
            if pattern == .halfRate { #expect(grants.count >= rate * 5 - 2) }
        }
    }

    @Test func nextAvailableIsExactToTheNanosecond() {
        var bucket = TokenBucket(ratePerSecond: 1500, now: 0)
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
        var bucket = TokenBucket(ratePerSecond: 100, now: 10 * Self.second)
        let first = bucket.take(now: 10 * Self.second)
        let earlier = bucket.take(now: 5 * Self.second)
        let wait = bucket.nextAvailable(now: 5 * Self.second)
        #expect(first)
        #expect(!earlier)
        #expect(wait > 0)
    }

    @Test func zeroRateIsUnlimited() {
        var bucket = TokenBucket(ratePerSecond: 0, now: 0)
        #expect(bucket.isUnlimited)
        #expect(bucket.maximumPerSecond == nil)
        var granted = 0
        for _ in 0..<100_000 where bucket.take(now: 0) { granted += 1 }
        let wait = bucket.nextAvailable(now: 0)
        #expect(granted == 100_000)
        #expect(wait == 0)
    }
}
