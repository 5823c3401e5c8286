/// Counters of one connection, for metrics. A snapshot: published by the event loop once per turn.
public struct ConnectionStats: Sendable, Hashable {
    /// `send` calls accepted.
    public var submitted = 0
    /// Attempts handed to libcurl, retries included (what the server sees).
    public var sent = 0
    /// Requests that got an HTTP response.
    public var completed = 0
    /// Requests that ended with a `TransportError`.
    public var failed = 0
    /// Attempts re-sent by the transport after the connection cut their stream.
    public var retried = 0
    /// Streams in libcurl now.
    public var inFlight = 0
    /// Requests waiting for a token or a stream slot.
    public var queued = 0
    /// Transfers that ended with a connection-fatal error (retried or not).
    public var connectionErrors = 0
    /// Times the multi handle was recreated by `reconnect()`.
    public var reconnects = 0
    /// A connection is open now: libcurl's newest socket, once APNs answered a request on it, until it closes.
    public var isOpen = false
    /// Connections opened so far (the first, and each reconnect), each counted once APNs answered on it: an
    /// attempt that failed is a connect failure, not an opened connection.
    public var opened = 0
    /// Connection attempts that failed (nothing could be sent), by reason.
    public var connectFailures: [ConnectFailureReason: Int] = [:]
    /// The error of the last connection attempt that failed.
    public var lastConnectFailure: TransportError?
    /// What the connection is doing, as its pool sees it (`ConnectionPool.stats`; `.connecting` elsewhere).
    public var state = ConnectionState.connecting
    /// The last transport error seen on this connection.
    public var lastError: TransportError?

    public init() {}
}
