/// What callers hand a connection loop and what the loop publishes back: the state both sides share,
/// kept in a `Locked` by the loop. Each operation says whether the loop must be woken; the caller writes
/// the wake-up byte outside the lock.
struct ConnectionMailbox {
    typealias Withdrawal = (groups: Set<Int64>?, waiter: CheckedContinuation<Int, Never>)

    private(set) var submissions: [ConnectionLoop.Submission] = []
    private(set) var shutdown = ShutdownState()
    private(set) var reconnectRequested = false
    /// `withdraw` calls waiting for the loop: which groups (nil: all), and who to tell how many were taken back.
    private(set) var withdrawals: [Withdrawal] = []
    /// Groups withdrawn once: a request of theirs submitted later is withdrawn at once (a send that was on its
    /// way to this connection while the withdrawal ran must not slip through after it).
    private var refusedGroups: Set<Int64> = []
    private var exited = false
    private var exitWaiters: [CheckedContinuation<Void, Never>] = []
    /// The loop sleeps in poll; `wakeSent`: someone already wrote the wake-up byte.
    private var loopWaiting = false
    private var wakeSent = false
    private(set) var published = ConnectionStats()
    /// Requests submitted and not finished.
    private(set) var outstanding = 0

    enum Posted: Equatable {
        /// The loop has it; write the wake-up byte if `wake`.
        case toLoop(wake: Bool)
        /// The loop has ended: nothing will take it.
        case loopEnded
    }

    enum Submitted: Equatable {
        case queued(wake: Bool)
        case refusedShutDown
        case refusedWithdrawn
    }

    mutating func submit(_ submission: ConnectionLoop.Submission) -> Submitted {
        if shutdown.isStopping || exited { return .refusedShutDown }
        if let group = submission.request.group, refusedGroups.contains(group) { return .refusedWithdrawn }
        submissions.append(submission)
        outstanding += 1
        published.submitted += 1
        return .queued(wake: wake())
    }

    mutating func withdraw(groups: Set<Int64>?, andLater: Bool, waiter: CheckedContinuation<Int, Never>) -> Posted {
        if andLater, let groups { refusedGroups.formUnion(groups) }
        if exited { return .loopEnded }
        withdrawals.append((groups, waiter))
        return .toLoop(wake: wake())
    }

    mutating func refuse(groups: Set<Int64>) {
        refusedGroups.formUnion(groups)
    }

    /// A stop by `deadline`; `waiter` (if any) is resumed when the loop has ended.
    mutating func stop(by deadline: UInt64, waiter: CheckedContinuation<Void, Never>?) -> Posted {
        if exited { return .loopEnded }
        if let waiter { exitWaiters.append(waiter) }
        shutdown.stop(by: deadline)
        return .toLoop(wake: wake())
    }

    mutating func requestReconnect() -> Bool {
        reconnectRequested = true
        return wake()
    }

    /// The loop replaced its connection.
    mutating func reconnected() {
        reconnectRequested = false
    }

    /// What the loop takes at the start of a turn.
    struct Turn {
        var shutdown: ShutdownState
        var reconnect: Bool
        var withdrawals: [Withdrawal]
    }

    /// Moves the submissions into `incoming` (empty: the two arrays swap, keeping their capacity).
    mutating func takeTurn(into incoming: inout [ConnectionLoop.Submission]) -> Turn {
        swap(&incoming, &submissions)
        defer { withdrawals.removeAll() }
        return Turn(shutdown: shutdown, reconnect: reconnectRequested, withdrawals: withdrawals)
    }

    /// Whether the loop may sleep: nothing arrived since `turn` was taken and it has nothing left to do now.
    /// If so, it counts as waiting (a caller then wakes it).
    mutating func sleepIfQuiet(since turn: Turn, busy: Bool) -> Bool {
        let quiet =
            !busy && submissions.isEmpty && withdrawals.isEmpty && shutdown == turn.shutdown
            && reconnectRequested == turn.reconnect
        if quiet { loopWaiting = true }
        return quiet
    }

    /// The loop is back from poll.
    mutating func woke() {
        loopWaiting = false
        wakeSent = false
    }

    /// The loop's counters; `finished` requests got their result since the last publication.
    mutating func publish(_ stats: ConnectionStats, finished: Int) {
        outstanding -= finished
        let submitted = published.submitted
        published = stats
        published.submitted = submitted
    }

    /// The loop is ending: returns the submissions it will never take, and from now on refuses new ones.
    mutating func close() -> [ConnectionLoop.Submission] {
        shutdown.stop(by: 0)
        defer { submissions.removeAll() }
        return submissions
    }

    /// The loop has ended: returns who waits for that.
    mutating func exit() -> (stops: [CheckedContinuation<Void, Never>], withdrawals: [Withdrawal]) {
        exited = true
        defer {
            exitWaiters.removeAll()
            withdrawals.removeAll()
        }
        return (exitWaiters, withdrawals)
    }

    private mutating func wake() -> Bool {
        let wake = loopWaiting && !wakeSent
        if wake { wakeSent = true }
        return wake
    }
}
