import QueueModel
import Testing

/// The worker's in-process wake-up: a wait on the store's commit signal returns on the next commit, at once when
/// one came since the value the worker saw, and when its task is cancelled (the worker stopping).
@Suite(.timeLimit(.minutes(1))) struct WorkSignalTests {
    @Test func aWaitReturnsOnTheNextCommit() async {
        let signal = WorkSignal()
        let seen = signal.current
        let waiter = Task { await signal.wait(whileAt: seen) }
        signal.notify()
        await waiter.value
        #expect(signal.current != seen)
    }

    @Test func aWaitReturnsAtOnceWhenACommitCameSinceTheValueSeen() async {
        let signal = WorkSignal()
        let seen = signal.current
        signal.notify()
        await signal.wait(whileAt: seen)
        #expect(signal.current == seen + 1)
    }

    @Test func aCancelledWaitReturnsWithoutACommit() async {
        let signal = WorkSignal()
        let seen = signal.current
        let waiter = Task { await signal.wait(whileAt: seen) }
        waiter.cancel()
        await waiter.value
        #expect(signal.current == seen)
    }
}
