import Testing

@testable import HTTP2Transport

@Suite struct TransportErrorTests {
    // CURLcode numbers from curl.h (7.88).
    @Test(arguments: [
        (7, TransportError.Kind.connect, true, true),  // COULDNT_CONNECT
        (6, .connect, true, true),  // COULDNT_RESOLVE_HOST
        (35, .connect, true, true),  // SSL_CONNECT_ERROR
        (60, .tlsVerification, true, false),  // PEER_FAILED_VERIFICATION
        (77, .tlsVerification, true, false),  // SSL_CACERT_BADFILE
        (16, .connectionLost, true, true),  // HTTP2 (GOAWAY above last-stream-id, framing)
        (92, .connectionLost, true, true),  // HTTP2_STREAM (RST_STREAM)
        (56, .connectionLost, true, true),  // RECV_ERROR
        (55, .connectionLost, true, true),  // SEND_ERROR
        (52, .connectionLost, true, true),  // GOT_NOTHING
        (28, .timeout, true, true),  // OPERATION_TIMEDOUT
        (3, .invalidRequest, false, false),  // URL_MALFORMAT
        (1, .invalidRequest, false, false),  // UNSUPPORTED_PROTOCOL
        (27, .other, true, true),  // OUT_OF_MEMORY
    ])
    func classification(code: Int, kind: TransportError.Kind, fatal: Bool, retryable: Bool) {
        let verdict = TransportError.classify(curlCode: code)
        #expect(verdict.kind == kind)
        #expect(verdict.isConnectionFatal == fatal)
        #expect(verdict.isRetryable == retryable)
    }

    @Test func onlyCutStreamsAreResentByTheTransport() {
        func error(_ code: Int) -> TransportError {
            let v = TransportError.classify(curlCode: code)
            return TransportError(
                kind: v.kind, curlCode: code, message: "x", isConnectionFatal: v.isConnectionFatal,
                isRetryable: v.isRetryable)
        }
        #expect(error(16).isRetriedByTransport)
        #expect(error(92).isRetriedByTransport)
        #expect(!error(7).isRetriedByTransport)  // refused: the caller backs off
        #expect(!error(28).isRetriedByTransport)  // timeout: APNs may have it; the caller decides
        #expect(!error(60).isRetriedByTransport)
    }

    @Test func descriptionCarriesCodeAndDetail() {
        let error = TransportError(
            kind: .connect, curlCode: 7, message: "Couldn't connect to server",
            detail: "Failed to connect to 127.0.0.1 port 1", isConnectionFatal: true, isRetryable: true)
        #expect(
            error.description
                == "transport connect: Couldn't connect to server (CURLcode 7): Failed to connect to 127.0.0.1 port 1")
        #expect(TransportError.shutdown().description == "transport shutdown: transport shut down")
    }
}
