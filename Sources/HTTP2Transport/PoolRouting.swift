/// Where a pool's next request goes, and what each outcome teaches the pool: every slot's `SlotHealth` and
/// load decide. A value the pool keeps behind its lock and feeds the monotonic clock; no I/O here.
///
/// A slot whose pause is over gets the next request (its probe), so a lost connection comes back as soon as
/// there is traffic; otherwise the least-loaded ready slot, ties taken in turn. When no slot is ready (APNs is
/// out) the request goes to the least-loaded slot anyway, and the worker's outage backoff paces what is sent.
struct PoolRouting: Sendable {
    private(set) var slots: [SlotHealth]
    private var cursor = 0

    init(count: Int, base: Duration, cap: Duration) {
        slots = Array(repeating: SlotHealth(base: base, cap: cap), count: count)
    }

    /// The slot for the next request, given each slot's outstanding requests. `excluding` holds the slots this
    /// request could not connect on: then only a ready slot or one whose pause is over is picked, else nil.
    mutating func pick(loads: [Int], now: UInt64, excluding: Set<Int> = []) -> Int? {
        let count = slots.count
        let start = cursor % count
        cursor = (cursor &+ 1) % count
        let order = (0..<count).map { (start + $0) % count }.filter { !excluding.contains($0) }
        if let probe = order.first(where: { slots[$0].awaitsProbe(now: now) }) {
            slots[probe].took(now: now)
            return probe
        }
        func leastLoaded(_ candidates: [Int]) -> Int? {
            candidates.min { loads[$0] < loads[$1] }
        }
        if let ready = leastLoaded(order.filter { slots[$0].isReady }) { return ready }
        guard excluding.isEmpty else { return nil }
        return leastLoaded(order)
    }

    /// A request on `slot` got an answer from APNs, or was written to it: the slot is ready, and slots paused by
    /// an outage try again now.
    mutating func reached(_ slot: Int, now: UInt64) {
        slots[slot].reached()
        for index in slots.indices where index != slot { slots[index].peerReached(now: now) }
    }

    /// A connection attempt on `slot` failed; `unit` is a random number in [0, 1).
    mutating func connectFailed(_ slot: Int, now: UInt64, unit: Double) {
        let othersReady = slots.indices.contains { $0 != slot && slots[$0].isReady }
        slots[slot].connectFailed(now: now, unit: unit, othersReady: othersReady)
    }

    /// A request on `slot` ended without news of the connection (withdrawn, shut down).
    mutating func abandoned(_ slot: Int, now: UInt64) {
        slots[slot].probeAbandoned(now: now)
    }
}
