import Foundation
import Synchronization
import Threads

/// The wake-up side of LISTEN/NOTIFY: its own connection on its own thread, listening on `PostgresStore.channel`.
/// Every notification (another connection's enqueue, release, cancel…) and every reconnection moves `count`,
/// which the store reports as its `changeCount`; a lost connection is re-opened with backoff.
final class PGListener: Sendable {
    private let conninfo: String
    private let counter = Atomic<Int64>(0)
    private let stopping = Atomic<Bool>(false)
    private let thread = Locked<DedicatedThread?>(nil)

    init(conninfo: String) {
        self.conninfo = conninfo
    }

    /// Moves at each notification received and at each (re)connection.
    var count: Int64 { counter.load(ordering: .acquiring) }

    /// Starts listening (once).
    func start() {
        thread.withLock { thread in
            guard thread == nil else { return }
            thread = DedicatedThread(name: "apnsd.pg-listen") { [self] in run() }
        }
    }

    /// Stops the thread and waits for it (within one poll interval).
    func stop() {
        stopping.store(true, ordering: .releasing)
        let running = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        running?.join()
    }

    private func run() {
        var backoff = 0.05
        while !stopping.load(ordering: .acquiring) {
            guard let connection = try? PGConnection(conninfo: conninfo),
                (try? connection.execute("LISTEN \(PostgresStore.channel)")) != nil
            else {
                sleep(seconds: backoff)
                backoff = min(2, backoff * 2)
                continue
            }
            backoff = 0.05
            // Whatever was committed while not listening counts as a change.
            counter.add(1, ordering: .releasing)
            while !stopping.load(ordering: .acquiring) {
                var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 200)
                if ready < 0 && errno != EINTR { break }
                if ready > 0 {
                    guard connection.consumeInput() else { break }
                    let received = connection.notifications().count
                    if received > 0 { counter.add(Int64(received), ordering: .releasing) }
                }
                if !connection.isOK { break }
            }
        }
    }

    private func sleep(seconds: Double) {
        var remaining = seconds
        while remaining > 0 && !stopping.load(ordering: .acquiring) {
            usleep(UInt32(min(remaining, 0.2) * 1_000_000))
            remaining -= 0.2
        }
    }
}
