/// Whether the connection's newest socket has answered a request that started on it.
///
/// A new connection is *unproven* until then, and the loop keeps one request in flight on it: the server's
/// SETTINGS may still lower the stream limit (APNs allows one stream until the first authorised request),
/// and libcurl 7.88 opens streams on a new connection before it has read them. Streams above the limit are
/// refused, and libcurl answers a refused stream by closing the connection and retrying on a fresh one,
/// where the same race starts again. A response proves the SETTINGS were read.
///
/// Fed by libcurl's socket callbacks and by finished transfers; no I/O here.
struct ConnectionProof: Equatable {
    /// libcurl's socket for the newest connection (-1: none open).
    private(set) var socket: Int32 = -1
    /// Counts sockets opened: a transfer that started after the newest one opened was sent on it
    /// (`CURLMOPT_MAX_HOST_CONNECTIONS` 1: libcurl opens a new one only in place of the old).
    private(set) var generation = 0
    /// The newest connection has answered a request that started on it.
    private(set) var isProven = false

    /// A socket libcurl just opened (CURLOPT_SOCKOPTFUNCTION).
    mutating func opened(_ descriptor: Int32) {
        socket = descriptor
        generation += 1
        isProven = false
    }

    /// A response arrived for a transfer that started on the connection of `generation`.
    mutating func answered(generation: Int) {
        if generation == self.generation && socket >= 0 { isProven = true }
    }

    /// libcurl is about to close a socket (CURLOPT_CLOSESOCKETFUNCTION): its number may be reused.
    mutating func closing(_ descriptor: Int32) {
        guard descriptor == socket else { return }
        socket = -1
        isProven = false
    }
}
