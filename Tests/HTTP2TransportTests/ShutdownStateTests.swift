import Testing

@testable import HTTP2Transport

/// When a stopping connection ends, on simulated time.
@Suite struct ShutdownStateTests {
    static let second: UInt64 = 1_000_000_000

    typealias Case = (deadline: UInt64?, now: UInt64, waiting: Int, inFlight: Int, action: ShutdownState.Action)

    @Test(
        arguments: [
            // No stop: carry on, however much is going on.
            (nil, 5 * second, 10, 3, .run(sleepAtMost: nil)),
            // Drained before the deadline: end at once.
            (10 * second, 5 * second, 0, 0, .finish),
            // Still working before the deadline: carry on, and wake up for the deadline (rounded up to a millisecond).
            (10 * second, 5 * second, 0, 1, .run(sleepAtMost: 5_000)),
            (10 * second, 10 * second - 1, 3, 0, .run(sleepAtMost: 1)),
            // At or past the deadline: what is left fails.
            (10 * second, 10 * second, 0, 1, .failTheRestAndFinish),
            (10 * second, 11 * second, 4, 2, .failTheRestAndFinish),
            // …unless nothing is left.
            (10 * second, 11 * second, 0, 0, .finish),
            // `stopNow`: the deadline is 0.
            (0, 5 * second, 1, 0, .failTheRestAndFinish),
        ] as [Case])
    func aTurnOfAStoppingLoop(_ turn: Case) {
        var shutdown = ShutdownState()
        if let deadline = turn.deadline { shutdown.stop(by: deadline) }
        #expect(shutdown.isStopping == (turn.deadline != nil))
        #expect(shutdown.turn(now: turn.now, waiting: turn.waiting, inFlight: turn.inFlight) == turn.action)
    }

    @Test func theEarliestDeadlineWins() {
        var shutdown = ShutdownState()
        shutdown.stop(by: 10 * Self.second)
        shutdown.stop(by: 20 * Self.second)
        #expect(shutdown.deadline == 10 * Self.second)
        shutdown.stop(by: 0)
        #expect(shutdown.deadline == 0)
    }
}
