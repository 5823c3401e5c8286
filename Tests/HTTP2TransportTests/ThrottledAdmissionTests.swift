import Testing

@testable import HTTP2Transport

/// A throttled connection's admission over simulated seconds, driven as the loop drives it: each wake-up
/// admits what it may, libcurl starts each request at once and answers `latency` later, and the loop sleeps
/// as `AdmissionState.sleep` says. (These replace end-to-end tests that measured elapsed time.)
@Suite struct ThrottledAdmissionTests {
    static let second: UInt64 = 1_000_000_000
    static let millisecond: UInt64 = 1_000_000

    struct Admitted: Equatable {
        var name: String
        var at: UInt64
    }

    /// Runs until everything arrived and was admitted; `arrivals` are (time, name, expedited).
    static func simulate(
        rate: Int, maxInFlight: Int = 1_000, latency: UInt64 = 5 * millisecond,
        arrivals: [(at: UInt64, name: String, expedited: Bool)]
    ) -> [Admitted] {
        var admission = AdmissionState<String>(
            maxInFlight: maxInFlight, throttle: Throttle(ratePerSecond: rate, now: 0), corks: true)
        admission.proof.opened(5)
        admission.proof.answered(generation: 1)
        var pending = arrivals.sorted { $0.at < $1.at }[...]
        var answers: [UInt64] = []  // times at which requests in flight are answered
        var admitted: [Admitted] = []
        var now: UInt64 = 0
        while admitted.count < arrivals.count {
            while let arrival = pending.first, arrival.at <= now {
                admission.enqueue(arrival.name, expedited: arrival.expedited)
                pending = pending.dropFirst()
            }
            for _ in answers.filter({ $0 <= now }) { admission.left(wasUnsent: false) }
            answers.removeAll { $0 <= now }
            admission.beginRound()
            while let name = admission.next(now: now) {
                admission.startedSending()
                admission.recordSend(at: now)
                admitted.append(Admitted(name: name, at: now))
                answers.append(now + latency)
            }
            admission.libcurlRan()
            // Sleep until the throttle's token, libcurl's next answer or the next arrival, whichever is first.
            let sleep = admission.sleep(now: now, admitting: true)
            var wake = now + (sleep.throttleWait > 0 ? sleep.throttleWait : UInt64(sleep.milliseconds) * millisecond)
            if let answer = answers.min() { wake = min(wake, answer) }
            if let arrival = pending.first { wake = min(wake, arrival.at) }
            now = max(wake, now + 1)
        }
        return admitted
    }

    @Test(arguments: [200, 1_500])
    func threeTimesTheRateTakesThreeSeconds(rate: Int) {
        let arrivals = (0..<(3 * rate)).map { (at: UInt64(0), name: "b\($0)", expedited: false) }
        let admitted = Self.simulate(rate: rate, arrivals: arrivals)
        let elapsed = admitted.last!.at - admitted.first!.at
        let worst = ThrottleModelTests.maxInAnySecond(admitted.map(\.at))
        #expect(elapsed >= 29 * Self.second / 10, "\(elapsed) ns")
        #expect(elapsed <= 32 * Self.second / 10, "and not much slower: \(elapsed) ns")
        #expect(worst <= Throttle(ratePerSecond: rate, now: 0).maximumPerSecond!)
        #expect(admitted.map(\.name) == arrivals.map(\.name), "in order")
    }

    @Test(arguments: [UInt64(0), 100 * millisecond, 700 * millisecond])
    func anExpeditedRequestPassesTheQueueButNotTheThrottle(arrivesAt: UInt64) {
        // 30 bulk requests wait at 20/s; an expedited one arrives later.
        var arrivals = (0..<30).map { (at: UInt64(0), name: "bulk\($0)", expedited: false) }
        arrivals.append((at: arrivesAt, name: "urgent", expedited: true))
        let admitted = Self.simulate(rate: 20, arrivals: arrivals)
        let urgent = admitted.first { $0.name == "urgent" }!
        let before = admitted.prefix { $0.name != "urgent" }.count
        let tokenInterval = Self.second / UInt64(Throttle.pacedRate(ratePerSecond: 20))
        #expect(urgent.at < arrivesAt + tokenInterval + Self.millisecond, "the next token is its own")
        #expect(before <= Int(arrivesAt / tokenInterval) + 1, "\(before) bulk requests went first")
        // The throttle still holds for all of them: 31 at 20/s take 1.5 s.
        #expect(admitted.last!.at - admitted.first!.at >= 30 * tokenInterval)
        #expect(ThrottleModelTests.maxInAnySecond(admitted.map(\.at)) <= 20)
    }

    @Test(arguments: [1_500, 5_000])
    func aBusyThrottledConnectionWakesPerBatchNotPerToken(rate: Int) {
        let arrivals = (0..<(3 * rate)).map { (at: UInt64(0), name: "b\($0)", expedited: false) }
        let admitted = Self.simulate(rate: rate, arrivals: arrivals)
        let batches = Dictionary(grouping: admitted, by: \.at)
        let elapsed = admitted.last!.at - admitted.first!.at
        let interval = AdmissionState<String>.throttledBatchInterval
        #expect(batches.count <= Int(elapsed / interval) + 2, "\(batches.count) batches in \(elapsed) ns")
        #expect(batches.values.map(\.count).max()! <= Throttle.step(ratePerSecond: rate))
        #expect(elapsed <= 32 * Self.second / 10, "batching loses no tokens: \(elapsed) ns")
        #expect(
            ThrottleModelTests.maxInAnySecond(admitted.map(\.at)) <= Throttle(ratePerSecond: rate, now: 0)
                .maximumPerSecond!)
    }

    /// A server counts a sliding second when it reads; a batch may reach it up to `delay` late (its reads,
    /// the network, its scheduler), each batch by its own amount.
    @Test(arguments: [UInt64(2), 10, 20])
    func aServerCountingArrivalsSeesAtMostTheRatePlusOnePercent(delayMilliseconds: UInt64) {
        let rate = 1_500
        let arrivals = (0..<(5 * rate)).map { (at: UInt64(0), name: "b\($0)", expedited: false) }
        let admitted = Self.simulate(rate: rate, arrivals: arrivals)
        var generator = SplitMix(seed: delayMilliseconds)
        var delays: [UInt64: UInt64] = [:]
        let arrivalsAtServer = admitted.map { sent -> UInt64 in
            if delays[sent.at] == nil {
                delays[sent.at] = generator.next() % (delayMilliseconds * Self.millisecond + 1)
            }
            return sent.at + delays[sent.at]!
        }.sorted()
        #expect(ThrottleModelTests.maxInAnySecond(arrivalsAtServer) <= rate * 101 / 100)
    }
}

/// A small seeded generator, so a failing case can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
