internal import CCurl

extension TransportError {
    /// How a `CURLcode` is treated: its kind, whether the connection is broken, whether the request may be retried.
    static func classify(curlCode code: Int) -> (kind: Kind, isConnectionFatal: Bool, isRetryable: Bool) {
        func c(_ value: CURLcode) -> Int { Int(value.rawValue) }
        switch code {
        case c(CURLE_COULDNT_RESOLVE_HOST), c(CURLE_COULDNT_CONNECT), c(CURLE_SSL_CONNECT_ERROR):
            return (.connect, true, true)
        case c(CURLE_PEER_FAILED_VERIFICATION), c(CURLE_SSL_CACERT_BADFILE), c(CURLE_SSL_CERTPROBLEM),
            c(CURLE_SSL_ISSUER_ERROR), c(CURLE_SSL_PINNEDPUBKEYNOTMATCH), c(CURLE_SSL_INVALIDCERTSTATUS),
            c(CURLE_SSL_CRL_BADFILE), c(CURLE_SSL_CIPHER), c(CURLE_SSL_CLIENTCERT):
            return (.tlsVerification, true, false)
        case c(CURLE_HTTP2), c(CURLE_HTTP2_STREAM), c(CURLE_RECV_ERROR), c(CURLE_SEND_ERROR),
            c(CURLE_GOT_NOTHING), c(CURLE_PARTIAL_FILE), c(CURLE_WEIRD_SERVER_REPLY), c(CURLE_UNRECOVERABLE_POLL):
            return (.connectionLost, true, true)
        case c(CURLE_OPERATION_TIMEDOUT):
            return (.timeout, true, true)
        case c(CURLE_UNSUPPORTED_PROTOCOL), c(CURLE_URL_MALFORMAT), c(CURLE_NOT_BUILT_IN),
            c(CURLE_BAD_FUNCTION_ARGUMENT), c(CURLE_UNKNOWN_OPTION):
            return (.invalidRequest, false, false)
        default:
            return (.other, true, true)
        }
    }

    /// The error for a transfer that ended with `code`; `detail` is the CURLOPT_ERRORBUFFER text.
    init(curlCode code: CURLcode, detail: String) {
        let number = Int(code.rawValue)
        let (kind, fatal, retryable) = Self.classify(curlCode: number)
        let message = String(cString: curl_easy_strerror(code))
        self.init(
            kind: kind, curlCode: number, message: message, detail: detail,
            isConnectionFatal: fatal, isRetryable: retryable)
    }

    /// Whether the transport itself re-sends a request that failed this way (once per `transportRetries`):
    /// the stream was cut by the connection (GOAWAY above last-stream-id, reset, EOF), not refused by APNs.
    var isRetriedByTransport: Bool { kind == .connectionLost }

    /// Whether no connection could be set up (or it never answered): connect, TLS verification, timeout.
    var meansNoConnection: Bool { kind == .connect || kind == .tlsVerification || kind == .timeout }
}

extension ConnectFailureReason {
    /// The reason for a connection attempt that ended with `error`.
    public init(_ error: TransportError) {
        func c(_ value: CURLcode) -> Int { Int(value.rawValue) }
        switch error.curlCode {
        case c(CURLE_COULDNT_RESOLVE_HOST), c(CURLE_COULDNT_RESOLVE_PROXY): self = .dns
        case c(CURLE_COULDNT_CONNECT): self = .connect
        case c(CURLE_OPERATION_TIMEDOUT): self = .timeout
        case c(CURLE_SSL_CONNECT_ERROR): self = .tls
        default: self = error.kind == .tlsVerification ? .tls : .other
        }
    }
}
