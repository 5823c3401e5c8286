#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The TCP sockets of one connection loop, corked while the loop drives libcurl so that what a turn writes
/// leaves in as few segments as possible.
///
/// libcurl 7.88 writes every request as three TLS records in three `send` calls (HEADERS, DATA, and the
/// RST_STREAM that ends each stream); with TCP_NODELAY each call went through the whole TCP transmit path and
/// woke the server on its own — a fifth of the client's CPU and more of the server's, per profile. Corked,
/// the calls only queue bytes; `uncork` at the end of the turn pushes them out. The sockets stay uncorked
/// between turns, so bytes the kernel could not send at once (congestion window, small queues) follow as usual
/// instead of waiting for the next turn. Linux only (TCP_CORK); elsewhere this does nothing. Unthrottled
/// connections only (see `Transfer.init`): a throttled request must leave when the bucket charged it.
///
/// A new connection is not corked until it has answered a request: until then the server's SETTINGS may
/// still lower the stream limit (APNs allows one stream before the first authorised request), and a server
/// that drops the connection early should see requests one by one, as it answers them, not all at once.
struct CorkedSockets {
    /// Opened, not yet proven by a response: left as libcurl set them up.
    private var fresh: [Int32] = []
    private var proven: [Int32] = []

    /// Whether turns are batched: a connection is up and has answered, and no new one is being set up.
    var isBatching: Bool { fresh.isEmpty && !proven.isEmpty }

    /// A socket libcurl just opened (CURLOPT_SOCKOPTFUNCTION).
    mutating func adopt(_ descriptor: Int32) {
        #if os(Linux)
        fresh.append(descriptor)
        #endif
    }

    /// A response arrived: the connection's sockets are established and may be corked from the next turn on.
    mutating func connectionAnswered() {
        guard !fresh.isEmpty else { return }
        proven.append(contentsOf: fresh)
        fresh.removeAll()
    }

    /// Stops tracking a socket libcurl is about to close (CURLOPT_CLOSESOCKETFUNCTION): its number may be reused.
    mutating func forget(_ descriptor: Int32) {
        fresh.removeAll { $0 == descriptor }
        proven.removeAll { $0 == descriptor }
    }

    /// Before the turn's libcurl calls: writes queue up from here on.
    func cork() {
        for descriptor in proven { Self.setCork(descriptor, on: true) }
    }

    /// After the turn's libcurl calls: sends what queued up (uncorking pushes it out).
    func uncork() {
        for descriptor in proven { Self.setCork(descriptor, on: false) }
    }

    private static func setCork(_ descriptor: Int32, on: Bool) {
        #if os(Linux)
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
