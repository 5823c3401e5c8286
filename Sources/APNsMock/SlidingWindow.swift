/// Counts events in the last second and remembers the most ever seen in any one-second window.
struct SlidingWindow {
    private var times: [UInt64] = []
    private var head = 0
    private(set) var maximum = 0
    let width: UInt64

    init(widthNanoseconds: UInt64 = 1_000_000_000) { width = widthNanoseconds }

    /// Records an event at `now` (monotonic nanoseconds, non-decreasing).
    mutating func record(now: UInt64) {
        times.append(now)
        while now - times[head] >= width { head += 1 }
        maximum = max(maximum, times.count - head)
        // Compact once the dead prefix dominates, so memory stays proportional to one window.
        if head > 4096 && head * 2 > times.count {
            times.removeFirst(head)
            head = 0
        }
    }

    /// Events in the window ending at the last recorded event.
    var current: Int { times.count - head }
}
