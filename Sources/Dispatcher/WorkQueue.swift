import APNs
import QueueModel

/// The claimed deliveries a worker holds unsent: its queue (single sends ahead of bulk work, each in claim order),
/// and per environment what waits for APNs to be reachable again.
struct WorkQueue {
    private var queue: [DeliveryJob] = []
    private var head = 0
    /// Claimed deliveries whose pool is paused because APNs could not be reached.
    var held: [Environment: [DeliveryJob]] = [:]

    var queued: Int { queue.count - head }
    var heldCount: Int { held.values.reduce(0) { $0 + $1.count } }

    mutating func next() -> DeliveryJob? {
        guard head < queue.count else { return nil }
        defer { head += 1 }
        return queue[head]
    }

    /// Queues claimed jobs: single sends ahead of the bulk work already queued, bulk work behind it.
    mutating func enqueueClaimed(_ jobs: [DeliveryJob]) {
        let singles = jobs.filter { $0.kind == .single }
        requeueFront(singles)
        if singles.count == jobs.count { return }
        if head > 0 {
            queue.removeFirst(head)
            head = 0
        }
        queue.append(contentsOf: singles.isEmpty ? jobs : jobs.filter { $0.kind != .single })
    }

    /// Puts `jobs` at the head of the queue (single sends claimed while busy; held work once its pool is
    /// reachable again): into the slots already taken from the queue when there are enough, so that a busy
    /// worker does not copy its whole queue for every few single sends.
    mutating func requeueFront(_ jobs: [DeliveryJob]) {
        guard !jobs.isEmpty else { return }
        if head >= jobs.count {
            head -= jobs.count
            queue.replaceSubrange(head..<head + jobs.count, with: jobs)
        } else {
            queue = jobs + queue[head...]
            head = 0
        }
    }

    /// Drops the queued and held jobs `shouldDrop` picks; returns how many.
    @discardableResult
    mutating func drop(where shouldDrop: (DeliveryJob) -> Bool) -> Int {
        let before = queued + heldCount
        queue = queue[head...].filter { !shouldDrop($0) }
        head = 0
        for environment in held.keys { held[environment]!.removeAll(where: shouldDrop) }
        return before - queued - heldCount
    }
}
