/// A request that got no HTTP response, with the libcurl context a person needs. Never holds a secret.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, coarsely.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// TCP connect / name resolution / TLS handshake failed (server down, refused, unreachable).
        public static let connect = Kind(rawValue: "connect")
        /// The server's certificate was not accepted, or the CA file is unusable: a configuration problem.
        public static let tlsVerification = Kind(rawValue: "tls-verification")
        /// The HTTP/2 connection or stream broke: GOAWAY, RST_STREAM, reset, EOF, framing error.
        public static let connectionLost = Kind(rawValue: "connection-lost")
        /// The connect or the request timeout expired.
        public static let timeout = Kind(rawValue: "timeout")
        /// The transport was shut down before the request completed.
        public static let shutdown = Kind(rawValue: "shutdown")
        /// Taken back before any of it was written (`withdraw`: a cancelled campaign, a stopping worker).
        public static let withdrawn = Kind(rawValue: "withdrawn")
        /// The request itself cannot be sent (malformed URL, unsupported option).
        public static let invalidRequest = Kind(rawValue: "invalid-request")
        /// Anything else libcurl reported.
        public static let other = Kind(rawValue: "other")

        public var description: String { rawValue }
    }

    public var kind: Kind
    /// The `CURLcode` (0 when the error did not come from libcurl, e.g. shutdown).
    public var curlCode: Int
    /// `curl_easy_strerror` text, or our own message.
    public var message: String
    /// libcurl's CURLOPT_ERRORBUFFER detail, when it said more than `message`.
    public var detail: String
    /// Whether the connection this happened on is broken (libcurl drops it and reconnects on the next request).
    public var isConnectionFatal: Bool
    /// Whether the same request may be sent again (after a backoff, perhaps on another connection).
    public var isRetryable: Bool
    /// Whether libcurl started writing the request (on some attempt) before it failed. False means APNs
    /// cannot have seen it: a connect, DNS or TLS failure, or a request withdrawn while it waited.
    public var requestWasSent: Bool

    public init(
        kind: Kind, curlCode: Int, message: String, detail: String = "",
        isConnectionFatal: Bool, isRetryable: Bool, requestWasSent: Bool = false
    ) {
        self.kind = kind
        self.curlCode = curlCode
        self.message = message
        self.detail = detail
        self.isConnectionFatal = isConnectionFatal
        self.isRetryable = isRetryable
        self.requestWasSent = requestWasSent
    }

    /// The transport is shutting down or has shut down.
    public static func shutdown(_ message: String = "transport shut down") -> TransportError {
        TransportError(kind: .shutdown, curlCode: 0, message: message, isConnectionFatal: false, isRetryable: true)
    }

    /// A request taken back before any of it was written.
    public static func withdrawn() -> TransportError {
        TransportError(
            kind: .withdrawn, curlCode: 0, message: "withdrawn before it was sent", isConnectionFatal: false,
            isRetryable: true)
    }

    /// APNs could not be reached at all: no connection (connect, DNS, TLS handshake, connect timeout) and
    /// nothing of the request written. The worker pauses the pool instead of spending an attempt.
    public var meansUnreachable: Bool {
        !requestWasSent && (kind == .connect || kind == .timeout || kind == .connectionLost || kind == .other)
    }

    public var description: String {
        var text = "transport \(kind): \(message)"
        if curlCode != 0 { text += " (CURLcode \(curlCode))" }
        if !detail.isEmpty && detail != message { text += ": \(detail)" }
        return text
    }
}
