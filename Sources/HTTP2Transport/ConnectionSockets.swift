#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a connection loop knows about its HTTP/2 connection's socket: whether the newest one has answered
/// yet, and (unthrottled connections) corking it while the loop drives libcurl.
///
/// **Proof.** A new connection is *unproven* until a request that started on it got a response. Until
/// then the loop keeps one request in flight: the server's SETTINGS may still lower the stream limit
/// (APNs allows one stream until the first authorised request), and libcurl 7.88 opens streams on a new
/// connection before it has read them. Streams above the limit are refused, and libcurl answers a refused
/// stream by closing the connection and retrying on a fresh one, where the same race starts again (on a
/// loaded machine: 3–10 connections where 1 would do). A response proves the SETTINGS were read.
///
/// **Corking.** libcurl 7.88 writes every request as three TLS records in three `send` calls (HEADERS,
/// DATA, and the RST_STREAM that ends each stream); with TCP_NODELAY each call went through the whole TCP
/// transmit path and woke the server on its own — a fifth of the client's CPU and more of the server's, per
/// profile. Corked, the calls only queue bytes; `uncork` at the end of the turn pushes them out. Sockets
/// stay uncorked between turns, so bytes the kernel could not send at once follow as usual. Linux only
/// (TCP_CORK). Unthrottled connections only: a throttled request must leave when the bucket charged it.
struct ConnectionSockets {
    /// libcurl's socket for the newest connection (-1: none open).
    private var newest: Int32 = -1
    /// Counts sockets opened: a transfer that started after the newest one opened was sent on it
    /// (`CURLMOPT_MAX_HOST_CONNECTIONS` 1: libcurl opens a new one only in place of the old).
    private(set) var generation = 0
    /// The newest connection has answered a request that started on it.
    private(set) var isProven = false
    private let corks: Bool

    init(corks: Bool) {
        #if os(Linux)
        self.corks = corks
        #else
        self.corks = false
        #endif
    }

    /// Whether the loop's turns are corked (and admission batched): an unthrottled, proven connection.
    var isCorking: Bool { corks && isProven }

    /// A socket libcurl just opened (CURLOPT_SOCKOPTFUNCTION).
    mutating func opened(_ descriptor: Int32) {
        newest = descriptor
        generation += 1
        isProven = false
    }

    /// A response arrived for a transfer that started on the connection of `generation`.
    mutating func answered(generation: Int) {
        if generation == self.generation && newest >= 0 { isProven = true }
    }

    /// libcurl is about to close a socket (CURLOPT_CLOSESOCKETFUNCTION): its number may be reused.
    mutating func closing(_ descriptor: Int32) {
        guard descriptor == newest else { return }
        newest = -1
        isProven = false
    }

    /// Before the turn's libcurl calls: writes queue up from here on.
    func cork() {
        if isCorking { Self.setCork(newest, on: true) }
    }

    /// After the turn's libcurl calls: sends what queued up (uncorking pushes it out).
    func uncork() {
        if isCorking { Self.setCork(newest, on: false) }
    }

    private static func setCork(_ descriptor: Int32, on: Bool) {
        #if os(Linux)
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
