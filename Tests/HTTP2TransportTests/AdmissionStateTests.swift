import Testing

@testable import HTTP2Transport

/// What a connection hands to libcurl and when, on simulated time: no sockets, no sleeping.
@Suite struct AdmissionStateTests {
    static let second: UInt64 = 1_000_000_000
    static let millisecond: UInt64 = 1_000_000

    /// A waiting request: its lane is the name's first letter (r: re-send, e: expedited, b: bulk).
    struct Item: Equatable, CustomStringConvertible {
        var name: String
        var group: Int64 = 0
        var description: String { name }
    }

    /// A connection whose socket is open and has answered (or not, with `proven: false`).
    static func admission(maxInFlight: Int, rate: Int = 0, corks: Bool = false, proven: Bool = true) -> AdmissionState<
        Item
    > {
        var admission = AdmissionState<Item>(
            maxInFlight: maxInFlight, throttle: Throttle(ratePerSecond: rate, now: 0), corks: corks)
        admission.proof.opened(5)
        if proven { admission.proof.answered(generation: admission.proof.generation) }
        return admission
    }

    static func enqueue(_ names: [String], into admission: inout AdmissionState<Item>, group: Int64 = 0) {
        for name in names {
            let item = Item(name: name, group: group)
            if name.hasPrefix("r") {
                admission.resend(item)
            } else {
                admission.enqueue(item, expedited: name.hasPrefix("e"))
            }
        }
    }

    /// One round of admissions at `now`, as the loop runs it.
    static func round(_ admission: inout AdmissionState<Item>, now: UInt64 = 0) -> [String] {
        admission.beginRound()
        var names: [String] = []
        while let item = admission.next(now: now) { names.append(item.name) }
        return names
    }

    @Test(arguments: [
        ("b1 b2 b3", "b1 b2 b3"),
        ("b1 b2 e1", "e1 b1 b2"),
        ("e1 b1 e2 b2", "e1 e2 b1 b2"),
        ("b1 e1 r1", "r1 e1 b1"),
        ("b1 r1 e1 r2 e2 b2", "r1 r2 e1 e2 b1 b2"),
    ])
    func resendsGoFirstThenExpeditedThenBulk(queued: String, admitted: String) {
        var admission = Self.admission(maxInFlight: 100)
        Self.enqueue(queued.split(separator: " ").map(String.init), into: &admission)
        #expect(Self.round(&admission).joined(separator: " ") == admitted)
        #expect(admission.queued == 0)
    }

    @Test(arguments: [1, 4, 50])
    func noMoreThanMaxInFlightAreInLibcurl(maxInFlight: Int) {
        var admission = Self.admission(maxInFlight: maxInFlight)
        Self.enqueue((0..<60).map { "b\($0)" }, into: &admission)
        let first = Self.round(&admission)
        let none = Self.round(&admission)
        #expect(first.count == min(60, maxInFlight))
        #expect(none.isEmpty)
        #expect(admission.inFlight == first.count)
        // One answered, one more goes.
        admission.startedSending()
        admission.left(wasUnsent: false)
        let next = Self.round(&admission)
        #expect(next.count == (maxInFlight < 60 ? 1 : 0))
    }

    enum ProofEvent: Sendable, CustomStringConvertible {
        case open(Int32)
        case close(Int32)
        case answer(generation: Int)
        var description: String {
            switch self {
            case .open(let socket): "open \(socket)"
            case .close(let socket): "close \(socket)"
            case .answer(let generation): "answer from generation \(generation)"
            }
        }
    }

    @Test(
        arguments: [
            ([], false),
            ([.open(5)], false),
            ([.open(5), .answer(generation: 1)], true),
            ([.open(5), .close(5), .answer(generation: 1)], false),  // the answer came after its connection closed
            ([.open(5), .close(5), .open(6), .answer(generation: 1)], false),  // sent on the old connection
            ([.open(5), .close(5), .open(6), .answer(generation: 2)], true),
            ([.open(5), .answer(generation: 1), .close(5)], false),
            ([.open(5), .answer(generation: 1), .close(7)], true),  // another socket closing proves nothing away
            ([.open(5), .answer(generation: 1), .open(6)], false),
        ] as [([ProofEvent], Bool)])
    func aNewConnectionCarriesOneRequestUntilItHasAnswered(events: [ProofEvent], proven: Bool) {
        var admission = AdmissionState<Item>(
            maxInFlight: 10, throttle: Throttle(ratePerSecond: 0, now: 0), corks: false)
        for event in events {
            switch event {
            case .open(let socket): admission.proof.opened(socket)
            case .close(let socket): admission.proof.closing(socket)
            case .answer(let generation): admission.proof.answered(generation: generation)
            }
        }
        Self.enqueue((0..<20).map { "b\($0)" }, into: &admission)
        #expect(admission.proof.isProven == proven)
        #expect(Self.round(&admission).count == (proven ? 10 : 1))
    }

    @Test func theFirstAnswerOpensTheWindow() {
        var admission = Self.admission(maxInFlight: 10, proven: false)
        Self.enqueue((0..<20).map { "b\($0)" }, into: &admission)
        let first = Self.round(&admission)
        let generation = admission.proof.generation
        admission.startedSending()
        let whileWaiting = Self.round(&admission)
        admission.left(wasUnsent: false)
        admission.proof.answered(generation: generation)
        let afterTheAnswer = Self.round(&admission)
        #expect(first == ["b0"])
        #expect(whileWaiting.isEmpty)
        #expect(afterTheAnswer == (1...10).map { "b\($0)" })
    }

    @Test(arguments: [(1, 8), (50, 8), (100, 12), (1_000, 125)])
    func whileCorkingEachLibcurlTurnGetsABatch(maxInFlight: Int, batch: Int) {
        var admission = Self.admission(maxInFlight: maxInFlight, corks: true)
        Self.enqueue((0..<300).map { "b\($0)" }, into: &admission)
        #expect(admission.batch == batch)
        #expect(admission.isCorking)
        let first = Self.round(&admission)
        let cutByBatch = admission.cut
        let sameTurn = Self.round(&admission)
        admission.libcurlRan()
        let nextTurn = Self.round(&admission)
        #expect(first.count == min(batch, maxInFlight))
        #expect(cutByBatch == (batch < maxInFlight), "a cut asks the loop to turn again instead of sleeping")
        #expect(sameTurn.isEmpty)
        #expect(nextTurn.count == min(batch, maxInFlight - first.count))
    }

    @Test(arguments: [(false, 0, true), (false, 20, true), (true, 0, false), (true, 20, false)])
    func withoutCorkingThereIsNoBatch(corks: Bool, rate: Int, proven: Bool) {
        var admission = Self.admission(maxInFlight: 100, rate: rate, corks: corks, proven: proven)
        Self.enqueue((0..<50).map { "b\($0)" }, into: &admission)
        #expect(!admission.isCorking)
        let admitted = Self.round(&admission)
        #expect(admitted.count == (!proven ? 1 : rate > 0 ? Throttle.slack(ratePerSecond: rate) : 50))
        #expect(!admission.cut)
    }

    @Test func aThrottledConnectionCorksAndStartsOneBatchPerInterval() {
        var admission = Self.admission(maxInFlight: 100, rate: 1_500, corks: true)
        Self.enqueue((0..<100).map { "b\($0)" }, into: &admission)
        #expect(admission.isCorking)
        let interval = AdmissionState<Item>.throttledBatchInterval
        func sendAll(_ names: [String], at time: UInt64) {
            for _ in names {
                admission.startedSending()
                admission.recordSend(at: time)
                admission.left(wasUnsent: false)
            }
        }
        let first = Self.round(&admission, now: 0)
        sendAll(first, at: 0)
        admission.libcurlRan()
        // Tokens come due every ~0.7 ms, but wake-ups in between (answers arriving) start no batch.
        var between: [String] = []
        for time in stride(from: Self.millisecond, to: interval, by: Int(Self.millisecond)) {
            between += Self.round(&admission, now: time)
            admission.libcurlRan()
        }
        let second = Self.round(&admission, now: interval)
        sendAll(second, at: interval)
        let sameRoundAgain = Self.round(&admission, now: interval)
        #expect(first.count == Throttle.slack(ratePerSecond: 1_500))
        #expect(between.isEmpty)
        // Everything that came due in 4 ms (1470/s: 5.9), in one batch.
        #expect(second.count == 5)
        #expect(sameRoundAgain.isEmpty, "the rest of the turn waits for the next batch")
    }

    @Test func throttledRequestsLibcurlHoldsBackStopFurtherAdmission() {
        var admission = Self.admission(maxInFlight: 100, rate: 100)
        Self.enqueue((0..<50).map { "b\($0)" }, into: &admission)
        let opening = Self.round(&admission).count
        // A second later the bucket is full, but libcurl has not sent the first ones: their tokens are spent.
        let held = Self.round(&admission, now: Self.second)
        let heldSleep = admission.sleep(now: Self.second, admitting: true)
        for _ in 0..<opening {
            admission.startedSending()
            admission.recordSend(at: Self.second)
        }
        let released = Self.round(&admission, now: Self.second)
        #expect(opening == Throttle.slack(ratePerSecond: 100))
        #expect(held.isEmpty)
        #expect(heldSleep == .init(milliseconds: 1000, throttleWait: 0), "libcurl's next step, not the throttle's")
        #expect(released.count == Throttle.step(ratePerSecond: 100))
    }

    @Test func takingBackAnUnsentAttemptFreesItsPlace() {
        var admission = Self.admission(maxInFlight: 1, rate: 100)
        Self.enqueue(["b0", "b1"], into: &admission)
        let first = Self.round(&admission)
        admission.left(wasUnsent: true)  // withdrawn from libcurl before it started
        let next = Self.round(&admission, now: Self.second)
        #expect(first == ["b0"])
        #expect(next == ["b1"])
        #expect(admission.unsent == 1 && admission.inFlight == 1)
    }

    @Test func withdrawTakesTheGroupsWaitingItemsFromEveryLaneAndKeepsTheOrderOfTheRest() {
        var admission = Self.admission(maxInFlight: 100)
        Self.enqueue(["b1", "e1", "r1"], into: &admission, group: 7)
        Self.enqueue(["b2", "e2", "r2"], into: &admission, group: 8)
        Self.enqueue(["b3"], into: &admission, group: 7)
        let withdrawn = admission.remove { $0.group == 7 }.map(\.name)
        let rest = Self.round(&admission)
        #expect(withdrawn == ["r1", "e1", "b1", "b3"])
        #expect(rest == ["r2", "e2", "b2"])
        Self.enqueue(["b4", "e4"], into: &admission)
        #expect(admission.drain().map(\.name) == ["e4", "b4"])
        #expect(admission.queued == 0)
    }

    @Test func aWaitingItemThatNeverReachesLibcurlIsNotInFlight() {
        var admission = Self.admission(maxInFlight: 2)
        Self.enqueue(["b0", "b1", "b2"], into: &admission)
        admission.beginRound()
        _ = admission.next(now: 0)
        admission.notHandedOver()  // e.g. a header with a line break: refused before libcurl saw it
        let rest = Self.round(&admission)
        #expect(rest == ["b1", "b2"])
        #expect(admission.inFlight == 2 && admission.unsent == 2)
    }

    @Test func sleep() {
        var idle = Self.admission(maxInFlight: 10)
        #expect(idle.sleep(now: 0, admitting: true) == .init(milliseconds: 1000, throttleWait: 0))

        // Unthrottled, libcurl holding one back for a stream slot while another is on the wire: poll again soon.
        var waitingForASlot = Self.admission(maxInFlight: 10)
        Self.enqueue(["b0", "b1"], into: &waitingForASlot)
        _ = Self.round(&waitingForASlot)
        waitingForASlot.startedSending()
        #expect(waitingForASlot.sleep(now: 0, admitting: true) == .init(milliseconds: 1, throttleWait: 0))

        // Throttled with requests waiting: the timerfd is armed for the next token, to the nanosecond.
        var throttled = Self.admission(maxInFlight: 10, rate: 1500)
        Self.enqueue((0..<10).map { "b\($0)" }, into: &throttled)
        for _ in Self.round(&throttled) {
            throttled.startedSending()
            throttled.recordSend(at: 0)
            throttled.left(wasUnsent: false)
        }
        // The next token is due sooner, but the next batch waits for the batch interval.
        let wait = throttled.sleep(now: 0, admitting: true)
        #expect(wait.throttleWait == AdmissionState<Item>.throttledBatchInterval)
        #expect(wait.milliseconds == 4)
        // At 20/s a token takes longer than the interval: the timerfd is armed for it, to the nanosecond.
        var slow = Self.admission(maxInFlight: 10, rate: 20)
        Self.enqueue((0..<10).map { "b\($0)" }, into: &slow)
        for _ in Self.round(&slow) {
            slow.startedSending()
            slow.recordSend(at: 0)
            slow.left(wasUnsent: false)
        }
        let paced = UInt64(Throttle.pacedRate(ratePerSecond: 20))
        #expect(slow.sleep(now: 0, admitting: true).throttleWait == (Self.second + paced - 1) / paced)
        // While a reconnect waits for the streams in flight, nothing is admitted: no throttle wake-up.
        #expect(throttled.sleep(now: 0, admitting: false) == .init(milliseconds: 1000, throttleWait: 0))
    }
}
