import Foundation
import Synchronization
import Threads

#if canImport(Glibc)
    import Glibc
#endif

/// One poll(2) thread: accepts on its own SO_REUSEPORT listener and drives its connections and timers.
/// poll rather than epoll: Glibc's Swift overlay does not export epoll, and a simulator holds few connections.
///
/// When accept fails for want of file descriptors (EMFILE, ENFILE) or memory, the listener is left out of the poll
/// set for `acceptPauseNanoseconds`, as nghttpx does: a listener the kernel keeps reporting readable would otherwise
/// spin the loop at full CPU while the connections already open wait.
final class EventLoop: @unchecked Sendable {
    static let acceptPauseNanoseconds: UInt64 = 250_000_000
    /// How often connections check their timeouts.
    static let tickNanoseconds: UInt64 = 100_000_000

    private let listener: Int32
    private let wakeupRead: Int32
    private let wakeupWrite: Int32
    private var acceptPausedUntil: UInt64 = 0
    private var nextTick: UInt64 = 0
    private let shared: MockShared
    private var connections: [Int32: H2Connection] = [:]
    /// Connections that stopped reading for other connections' sake with input left inside OpenSSL.
    private var again: [H2Connection] = []
    private var timers: [(deadline: UInt64, action: () -> Void)] = []
    private let stopping = Atomic<Bool>(false)
    private var thread: DedicatedThread?
    /// Scratch space for TLS reads, shared by this loop's connections.
    var readBuffer = [UInt8](repeating: 0, count: 1 << 16)

    init(listener: Int32, shared: MockShared) throws {
        self.listener = listener
        self.shared = shared
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw MockError.socket("pipe: \(String(cString: strerror(errno)))") }
        wakeupRead = pipeFDs[0]
        wakeupWrite = pipeFDs[1]
        _ = fcntl(wakeupRead, F_SETFL, O_NONBLOCK)
    }

    func start() {
        thread = DedicatedThread(name: "apns-mock-loop") { [self] in run() }
    }

    /// Asks the loop to close everything and waits until it has.
    /// Stops the loop and waits for its thread; a second call only waits (the wake-up pipe is closed by then).
    func stop() {
        if !stopping.exchange(true, ordering: .acquiringAndReleasing) {
            var one: UInt64 = 1
            _ = write(wakeupWrite, &one, 8)
        }
        thread?.join()
    }

    private func run() {
        var fds: [pollfd] = []
        while !stopping.load(ordering: .acquiring) {
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeupRead, events: Int16(POLLIN), revents: 0))
            if MonotonicClock.nanoseconds() >= acceptPausedUntil {
                fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            }
            for (fd, connection) in connections {
                // No POLLIN while a connection's answers back up: it reads again once the client takes them.
                let events = (connection.wantsRead ? Int16(POLLIN) : 0) | (connection.wantsWrite ? Int16(POLLOUT) : 0)
                fds.append(pollfd(fd: fd, events: events, revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), again.isEmpty ? nextTimeout() : 0)
            if n < 0 && errno != EINTR { break }
            let turn = again
            again.removeAll()
            for connection in turn where !connection.closed { connection.readable() }
            if n > 0 {
                for entry in fds where entry.revents != 0 {
                    if entry.fd == listener {
                        acceptAll()
                    } else if entry.fd == wakeupRead {
                        var value: UInt64 = 0
                        _ = read(wakeupRead, &value, 8)
                    } else if let connection = connections[entry.fd] {
                        let flags = entry.revents
                        if flags & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && flags & Int16(POLLIN) == 0 {
                            connection.close()
                            continue
                        }
                        if flags & Int16(POLLOUT) != 0 { connection.writable() }
                        if flags & Int16(POLLIN) != 0, !connection.closed { connection.readable() }
                    }
                }
            }
            runTimers()
            let now = MonotonicClock.nanoseconds()
            if now >= nextTick {
                nextTick = now + Self.tickNanoseconds
                for connection in Array(connections.values) { connection.tick(now: now) }
            }
        }
        for connection in Array(connections.values) { connection.close() }
        again.removeAll()
        Glibc.close(listener)
        Glibc.close(wakeupRead)
        Glibc.close(wakeupWrite)
    }

    private func acceptAll() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                switch errno {
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    acceptPausedUntil = MonotonicClock.nanoseconds() + Self.acceptPauseNanoseconds
                default:
                    break  // EAGAIN: nothing more waiting; ECONNABORTED and the like: that one is gone
                }
                return
            }
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            guard let connection = try? H2Connection(fd: fd, shared: shared, loop: self) else {
                Glibc.close(fd)
                continue
            }
            connections[fd] = connection
        }
    }

    /// Services `connection` in the next turn even if poll reports nothing for it.
    func again(_ connection: H2Connection) { again.append(connection) }

    func remove(connection: H2Connection) {
        Glibc.close(connection.fd)
        connections[connection.fd] = nil
    }

    /// Runs `action` on this loop after `milliseconds`.
    func schedule(afterMilliseconds milliseconds: Int, _ action: @escaping () -> Void) {
        timers.append((MonotonicClock.nanoseconds() + UInt64(milliseconds) * 1_000_000, action))
    }

    private func nextTimeout() -> Int32 {
        var soonest = timers.map(\.deadline).min() ?? UInt64.max
        if !connections.isEmpty { soonest = min(soonest, nextTick) }
        let now = MonotonicClock.nanoseconds()
        if acceptPausedUntil > now { soonest = min(soonest, acceptPausedUntil) }
        if soonest == UInt64.max { return 1000 }
        return soonest <= now ? 0 : Int32(min(1000, (soonest - now) / 1_000_000 + 1))
    }

    private func runTimers() {
        guard !timers.isEmpty else { return }
        let now = MonotonicClock.nanoseconds()
        let due = timers.filter { $0.deadline <= now }
        guard !due.isEmpty else { return }
        timers.removeAll { $0.deadline <= now }
        for timer in due { timer.action() }
    }
}
