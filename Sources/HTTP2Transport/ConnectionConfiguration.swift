/// Settings of one HTTP/2 connection (one libcurl multi handle).
public struct ConnectionConfiguration: Sendable, Hashable {
    /// `https://host[:port]`, without a trailing slash. Only https: HTTP/2 goes over TLS with ALPN, never h2c.
    public var baseURL: String
    /// A PEM CA bundle to verify the server with instead of the system store (tests, staging). Verification is always on.
    public var caFile: String?
    /// Requests per second on this connection (`apns.rate`); 0 = unthrottled.
    public var ratePerSecond: Int
    /// Limit for TCP connect + TLS handshake.
    public var connectTimeout: Duration
    /// Limit for one request from the moment it is handed to libcurl until its response is complete.
    public var requestTimeout: Duration
    /// Streams handed to libcurl at once; above the server's MAX_CONCURRENT_STREAMS libcurl queues them itself.
    public var maxInFlight: Int
    /// How often the transport itself re-sends a request whose stream the connection cut (GOAWAY, reset, EOF)
    /// before returning the failure to the caller.
    public var transportRetries: Int
    /// A name for the event-loop thread and for logs.
    public var label: String
    /// Direct, or through a proxy.
    public var proxy: Proxy
    /// The client certificate presented in the TLS handshake (certificate-based authentication); nil for
    /// token-based authentication.
    public var clientIdentity: ClientIdentity?

    public init(
        baseURL: String, caFile: String? = nil, ratePerSecond: Int = 1500,
        connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
        maxInFlight: Int = 1000, transportRetries: Int = 1, label: String = "apns", proxy: Proxy = .none,
        clientIdentity: ClientIdentity? = nil
    ) {
        self.proxy = proxy
        self.clientIdentity = clientIdentity
        self.baseURL = baseURL
        self.caFile = caFile
        self.ratePerSecond = ratePerSecond
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxInFlight = maxInFlight
        self.transportRetries = transportRetries
        self.label = label
    }

    /// The highest `ratePerSecond` accepted (as `apns.rate` on the command line).
    public static let maximumRate = 1_000_000

    /// Checks the values; the error says which is wrong.
    public func validate() throws(TransportError) {
        func invalid(_ message: String) -> TransportError {
            TransportError(
                kind: .invalidRequest, curlCode: 0, message: message, isConnectionFatal: false, isRetryable: false)
        }
        guard baseURL.lowercased().hasPrefix("https://"), baseURL.count > 8 else {
            throw invalid("base URL '\(baseURL)' must start with https:// (HTTP/2 over TLS only)")
        }
        guard !baseURL.hasSuffix("/") else { throw invalid("base URL '\(baseURL)' must not end with '/'") }
        guard ratePerSecond >= 0 else { throw invalid("rate \(ratePerSecond) must be 0 (unthrottled) or positive") }
        // The throttle keeps the last second's send times: a ring of `rate` entries per connection.
        guard ratePerSecond <= Self.maximumRate else {
            throw invalid(
                "rate \(ratePerSecond) is above \(Self.maximumRate) requests/s per connection; use 0 for unthrottled")
        }
        guard maxInFlight >= 1 else { throw invalid("maxInFlight \(maxInFlight) must be at least 1") }
        guard transportRetries >= 0 else { throw invalid("transportRetries must not be negative") }
        guard connectTimeout > .zero, requestTimeout > .zero else { throw invalid("timeouts must be positive") }
        if let clientIdentity {
            guard !clientIdentity.certificateChainPEM.isEmpty, !clientIdentity.privateKeyPEM.isEmpty else {
                throw invalid("client identity of '\(label)' needs both a certificate and a private key")
            }
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up, at least 1.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, Int(ms))
    }
}
