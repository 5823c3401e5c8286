/// Which waiting requests a connection hands to libcurl, and when; time is passed in, nothing here does I/O.
/// `Item` is what waits: the loop's new submissions and re-sends (tests use plain values).
///
/// Order: re-sends first (they were admitted once already), then expedited requests (single sends, which
/// a person waits for), then bulk. Limits, all at once:
/// - `maxInFlight` attempts in libcurl, and only one while the connection is unproven (`ConnectionProof`);
/// - the throttle's tokens; and while libcurl holds throttled attempts back (not sent yet), no more: their
///   tokens are already spent, and more would leave in a bunch once libcurl lets them go;
/// - while corking (a proven connection), at most `batch` hand-overs per libcurl turn, so the server works on
///   one batch while the loop prepares the next instead of both taking turns idling;
/// - throttled, one batch per `throttledBatchInterval`: each batch takes every token that came due since the
///   last, so the loop wakes every few milliseconds and writes a batch at once instead of waking per token.
///   The bucket holds 25 ms of tokens, so none are lost while waiting; a server counting arrivals sees the
///   same rate, at most one batch (≤ `Throttle.step`) more bunched.
///
/// The loop calls `beginRound`, then `next` until it returns nil, and reports what libcurl does.
struct AdmissionState<Item> {
    let maxInFlight: Int
    /// Hand-overs per libcurl turn while corking: `max(8, maxInFlight / 8)`, so a turn can refill an eighth of a
    /// large window and small windows still get batches of 8.
    let batch: Int
    private(set) var throttle: Throttle
    var proof = ConnectionProof()
    /// Whether this connection corks its socket per turn (Linux); while it is proven, it does.
    private let corks: Bool
    /// Throttled: when the next batch may start, and whether this round started one.
    private var nextBatchAt: UInt64 = 0
    private var batchStarted = false

    private var resends = WaitingQueue<Item>()
    private var expedited = WaitingQueue<Item>()
    private var bulk = WaitingQueue<Item>()
    /// Attempts in libcurl.
    private(set) var inFlight = 0
    /// Attempts in libcurl that it has not started sending yet (CURLOPT_PREREQFUNCTION).
    private(set) var unsent = 0
    private var handedThisTurn = 0
    private var roundOpen = false
    /// The last round stopped at `batch` with requests still waiting for a free slot: turn again, don't sleep.
    private(set) var cut = false

    init(maxInFlight: Int, throttle: Throttle, corks: Bool) {
        self.maxInFlight = maxInFlight
        batch = max(8, maxInFlight / 8)
        self.throttle = throttle
        self.corks = corks
    }

    /// How often a throttled connection starts a batch: 4 ms, ~6 requests at 1500/s. Short enough that a
    /// single send barely waits, long enough that wake-ups cost little next to the requests they send.
    static var throttledBatchInterval: UInt64 { 4_000_000 }

    /// Requests waiting to be handed to libcurl.
    var queued: Int { resends.count + expedited.count + bulk.count }

    /// Attempts the connection may have in libcurl now.
    var limit: Int { proof.isProven ? maxInFlight : 1 }

    /// Whether the loop corks the socket this turn (and batches admission).
    var isCorking: Bool { corks && proof.isProven }

    mutating func enqueue(_ item: Item, expedited isExpedited: Bool) {
        if isExpedited { expedited.append(item) } else { bulk.append(item) }
    }

    /// An attempt the connection cut, to go again before anything else (`ResendPolicy` said so).
    mutating func resend(_ item: Item) {
        resends.append(item)
    }

    /// Before a series of `next` calls.
    mutating func beginRound() {
        cut = false
        batchStarted = false
        roundOpen = throttle.isUnlimited || unsent == 0
    }

    /// The next item to hand to libcurl at `now`, counted as in flight and unsent (report a failed hand-over
    /// with `notHandedOver`); nil when none may go now.
    mutating func next(now: UInt64) -> Item? {
        guard roundOpen, inFlight < limit, queued > 0 else { return nil }
        guard !isCorking || handedThisTurn < batch else {
            cut = true
            return nil
        }
        if !throttle.isUnlimited && !batchStarted {
            guard now >= nextBatchAt, throttle.admit(now: now, unsent: unsent) else { return nil }
            batchStarted = true
            nextBatchAt = now &+ Self.throttledBatchInterval
        } else {
            guard throttle.admit(now: now, unsent: unsent) else { return nil }
        }
        handedThisTurn += 1
        inFlight += 1
        unsent += 1
        return resends.popFirst() ?? expedited.popFirst() ?? bulk.popFirst()
    }

    /// The item `next` returned never reached libcurl (it failed first). Its token stays spent.
    mutating func notHandedOver() {
        inFlight -= 1
        unsent -= 1
    }

    /// libcurl ran a turn (curl_multi_perform): a new batch may follow.
    mutating func libcurlRan() {
        handedThisTurn = 0
    }

    /// libcurl started sending an attempt it had not started before (CURLOPT_PREREQFUNCTION).
    mutating func startedSending() {
        unsent -= 1
    }

    /// A send started at `time`: every start counts for the throttle, also libcurl's own re-send of an attempt
    /// on a fresh connection. Only throttled connections need it (`needsSendTimes`).
    mutating func recordSend(at time: UInt64) {
        throttle.recordSend(at: time)
    }

    var needsSendTimes: Bool { !throttle.isUnlimited }

    /// An attempt left libcurl (finished, failed or taken back); `wasUnsent` if it never started sending.
    mutating func left(wasUnsent: Bool) {
        inFlight -= 1
        if wasUnsent { unsent -= 1 }
    }

    /// Takes out the waiting items `matches` picks (for `withdraw`), in admission order.
    mutating func remove(where matches: (Item) -> Bool) -> [Item] {
        resends.remove(where: matches) + expedited.remove(where: matches) + bulk.remove(where: matches)
    }

    /// Takes out every waiting item, in admission order.
    mutating func drain() -> [Item] {
        Array(resends.drain()) + Array(expedited.drain()) + Array(bulk.drain())
    }

    /// How long the loop may sleep when nothing else is due.
    struct Sleep: Equatable {
        /// The poll timeout, whole milliseconds.
        var milliseconds: Int
        /// Nanoseconds to the throttle's next token, for the loop's timerfd (0: none due); a poll timeout in
        /// whole milliseconds alone would oversleep each token by up to a millisecond.
        var throttleWait: UInt64
    }

    /// The sleep at `now`; `admitting` is false while a reconnect waits for the streams in flight.
    mutating func sleep(now: UInt64, admitting: Bool) -> Sleep {
        var sleep = Sleep(milliseconds: 1000, throttleWait: 0)
        // While libcurl still holds throttled requests back, the next step is its own: no throttle wake-up.
        if admitting && queued > 0 && inFlight < limit && (throttle.isUnlimited || unsent == 0) {
            sleep.throttleWait = max(throttle.wait(now: now), nextBatchAt > now ? nextBatchAt - now : 0)
            sleep.milliseconds = min(sleep.milliseconds, Int((sleep.throttleWait + 999_999) / 1_000_000))
        }
        // Unthrottled, libcurl holding attempts back for a stream slot while others are on the wire: it does not
        // always wake the loop when a slot frees, so drive it again soon. (Throttled connections keep to their
        // timerfd: waking every millisecond would take CPU from the pacing.)
        if throttle.isUnlimited && unsent > 0 && unsent < inFlight { sleep.milliseconds = min(sleep.milliseconds, 1) }
        return sleep
    }
}
