import Dispatcher
import Foundation
import QueueModel
import Testing

/// Each `retry.jitter` choice: its bounds at every attempt and how it spreads a herd of deliveries that failed
/// together. Random numbers come from a seeded generator, so every run checks the same draws.
struct RetryJitterTests {
    /// SplitMix64: a small seeded generator, so the spreads below are the same on every run.
    struct SeededRandom: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func units(_ count: Int, seed: UInt64 = 13) -> [Double] {
        var random = SeededRandom(state: seed)
        return (0..<count).map { _ in Double.random(in: 0..<1, using: &random) }
    }

    static func policy(_ jitter: Jitter) -> RetryPolicy {
        RetryPolicy(base: .seconds(1), cap: .seconds(30), maxAttempts: 10, jitter: jitter)
    }

    @Test func theChoicesAreNamedAndFullIsTheDefault() {
        #expect(Jitter.all.map(\.rawValue) == ["full", "equal", "decorrelated"])
        #expect(Jitter("equal") == .equal && Jitter("decorrelated") == .decorrelated && Jitter("Full") == nil)
        #expect(RetryPolicy().jitter == .full)
    }

    @Test func fullDrawsFromZeroToTheCeiling() {
        let policy = Self.policy(.full)
        for (attempts, ceiling) in [(1, 1.0), (2, 2), (3, 4), (4, 8), (5, 16), (6, 30), (9, 30)] {
            #expect(policy.delay(afterAttempts: attempts, unit: 0) == .zero)
            #expect(abs(policy.delay(afterAttempts: attempts, unit: 1).seconds - ceiling) < 1e-9, "attempt \(attempts)")
        }
        let delays = Self.units(1000).map { policy.delay(afterAttempts: 4, unit: $0).seconds }
        #expect(delays.allSatisfy { (0...8).contains($0) })
        // Uniform over [0, 8]: each quarter holds about a quarter of the herd.
        for quarter in 0..<4 {
            let count = delays.filter { $0 >= Double(quarter) * 2 && $0 < Double(quarter + 1) * 2 }.count
            #expect((200...300).contains(count), "quarter \(quarter): \(count)")
        }
    }

    @Test func equalKeepsHalfTheCeilingAndDrawsTheRest() {
        let policy = Self.policy(.equal)
        for (attempts, ceiling) in [(1, 1.0), (2, 2), (3, 4), (4, 8), (5, 16), (6, 30), (9, 30)] {
            #expect(
                abs(policy.delay(afterAttempts: attempts, unit: 0).seconds - ceiling / 2) < 1e-9, "attempt \(attempts)")
            #expect(abs(policy.delay(afterAttempts: attempts, unit: 1).seconds - ceiling) < 1e-9, "attempt \(attempts)")
        }
        let delays = Self.units(1000).map { policy.delay(afterAttempts: 4, unit: $0).seconds }
        #expect(delays.allSatisfy { (4...8).contains($0) }, "never sooner than half the ceiling")
        #expect(delays.filter { $0 < 6 }.count > 400 && delays.filter { $0 >= 6 }.count > 400)
    }

    @Test func decorrelatedDrawsFromBaseToThreeTimesThePreviousDelay() {
        let policy = Self.policy(.decorrelated)
        // With the previous delay known: random(base, 3 · previous), at most cap.
        #expect(abs(policy.delay(afterAttempts: 3, unit: 0, previous: .seconds(4)).seconds - 1) < 1e-9)
        #expect(abs(policy.delay(afterAttempts: 3, unit: 1, previous: .seconds(4)).seconds - 12) < 1e-9)
        #expect(abs(policy.delay(afterAttempts: 3, unit: 1, previous: .seconds(20)).seconds - 30) < 1e-9, "capped")
        // Without it: the longest the previous delay could have been, base · 3^(attempts−1).
        for (attempts, high) in [(1, 3.0), (2, 9), (3, 27), (4, 30), (9, 30)] {
            #expect(
                abs(policy.delay(afterAttempts: attempts, unit: 0).seconds - 1) < 1e-9,
                "floor at base, attempt \(attempts)")
            #expect(abs(policy.delay(afterAttempts: attempts, unit: 1).seconds - high) < 1e-9, "attempt \(attempts)")
        }
        let delays = Self.units(1000).map { policy.delay(afterAttempts: 3, unit: $0).seconds }
        #expect(delays.allSatisfy { (1...27).contains($0) })
        #expect(delays.filter { $0 < 14 }.count > 400 && delays.filter { $0 >= 14 }.count > 400)

        // A chain fed its own delays stays within [base, cap] and does not move in step with another chain.
        var a: Duration = .seconds(1)
        var b: Duration = .seconds(1)
        let draws = Self.units(40, seed: 7)
        var apart = 0
        for step in 0..<20 {
            a = policy.delay(afterAttempts: step + 2, unit: draws[2 * step], previous: a)
            b = policy.delay(afterAttempts: step + 2, unit: draws[2 * step + 1], previous: b)
            #expect((1...30).contains(a.seconds) && (1...30).contains(b.seconds))
            if abs(a.seconds - b.seconds) > 0.5 { apart += 1 }
        }
        #expect(apart >= 10, "two deliveries that failed together drift apart")
    }

    @Test func aBaseAboveTheCapNeverExceedsTheCap() {
        for jitter in Jitter.all {
            let policy = RetryPolicy(base: .seconds(10), cap: .seconds(5), maxAttempts: 5, jitter: jitter)
            for unit in [0.0, 0.5, 1] {
                #expect(policy.delay(afterAttempts: 3, unit: unit) <= .seconds(5), "\(jitter) at \(unit)")
            }
        }
    }
}

extension RetryJitterTests {
    /// The worker's decision feeds decorrelated jitter the delay the job waited last time.
    @Test func aDecisionDrawsFromTheJobsPreviousDelay() throws {
        let policy = RetryPolicy(base: .seconds(1), cap: .seconds(300), maxAttempts: 10, jitter: .decorrelated)
        var job = DeliveryDecisionTests.job(attempts: 2)
        job.previousDelay = .seconds(10)
        let now = DeliveryDecisionTests.now
        for (unit, expected) in [(0.0, 1.0), (0.5, 15.5), (1, 30)] {
            let decision = DeliveryDecision.decide(
                job: job, answer: DeliveryDecisionTests.response(503, "ServiceUnavailable"), credential: "default",
                now: now,
                policy: policy, unit: unit)
            guard case .retry(let date)? = decision.result?.disposition else {
                Issue.record("not retried: \(decision)")
                continue
            }
            #expect(abs(date.timeIntervalSince(now) - expected) < 1e-6, "unit \(unit)")
        }
    }
}
