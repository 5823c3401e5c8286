import APNs
import Foundation
internal import CNGHTTP2
internal import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// One client connection: TLS on a non-blocking socket, an nghttp2 server session, and APNs's answers.
/// Lives on one event loop thread only.
final class H2Connection {
    let id: Int
    let fd: Int32
    private let ssl: OpaquePointer
    private var session: OpaquePointer?
    private let shared: MockShared
    private unowned let loop: EventLoop
    private var handshakeDone = false
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var wantsWritable = false
    private(set) var closed = false
    private var closeWhenFlushed = false
    private var draining = false
    private var requests = 0
    private var window = SlidingWindow()
    private var auth: ConnectionAuth
    private let faulty: Bool
    private var goawayStream: Int32?
    private var authorizedOnce = false
    private var random = FastRandom()
    private let apnsIDScratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 36)
    /// The state of each open request stream, by stream id. nghttp2 keeps only an unretained pointer to it (stream
    /// user data): nghttp2_session_del frees open streams without calling on_stream_close, so a connection that
    /// goes away mid-request (abrupt close, GOAWAY, stop) must own what its streams point at.
    var streams: [Int32: StreamState] = [:]
    /// The authorization header of the previous request, so the next identical one costs a memcmp.
    var lastAuthorization: [UInt8]? { auth.lastAuthorization }

    init(fd: Int32, shared: MockShared, loop: EventLoop) throws {
        guard let ssl = SSL_new(shared.tls.context) else { throw MockError.tls("SSL_new failed") }
        self.ssl = ssl
        self.fd = fd
        self.shared = shared
        self.loop = loop
        let id = shared.stats.openConnection()
        self.id = id
        auth = ConnectionAuth(verifier: shared.verifier, updateInterval: shared.tokenUpdateInterval)
        faulty = shared.scenario.scenario.connection.faultyConnections.map { id <= $0 } ?? true
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        SSL_free(ssl)
        apnsIDScratch.deallocate()
    }

    // MARK: I/O

    func readable() {
        if draining { drain(); return }
        if !handshakeDone && !handshake() { return }
        loop.readBuffer.withUnsafeMutableBytes { buffer in
            while !closed {
                // OpenSSL's error queue is per thread and shared by this loop's connections: an error left by one
                // (a peer killed mid-stream) makes SSL_get_error call another's WANT_READ fatal, closing it.
                ERR_clear_error()
                let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                if n <= 0 {
                    let error = SSL_get_error(ssl, n)
                    if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE { close() }
                    break
                }
                let consumed = nghttp2_session_mem_recv(session, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int(n))
                if consumed < 0 { close(); break }
            }
        }
        flush()
    }

    func writable() {
        if !handshakeDone { _ = handshake(); return }
        flush()
    }

    private func handshake() -> Bool {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone = true
            startSession()
            return true
        }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE {
            setWritableInterest(error == SSL_ERROR_WANT_WRITE)
        } else {
            ERR_clear_error()
            close()
        }
        return false
    }

    private func startSession() {
        // libcurl 7.88 ends every finished stream with RST_STREAM(STREAM_CLOSED); nghttp2's rapid-reset guard
        // (1000 resets, then 33/s) would answer with GOAWAY(INTERNAL_ERROR) after ~1000 requests. APNs does not.
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        nghttp2_option_set_stream_reset_rate_limit(option, 1 << 40, 1 << 30)
        nghttp2_session_server_new2(&session, h2Callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        nghttp2_option_del(option)
        let streams = shared.scenario.scenario.connection.singleStreamUntilAuthorized == true ? 1 : shared.maxConcurrentStreams
        submitSettings(maxStreams: streams)
        flush()
    }

    private func submitSettings(maxStreams: Int) {
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(maxStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    /// Moves nghttp2's pending frames into the socket, as far as it takes them.
    func flush() {
        guard !closed, !draining, let session else { return }
        while nghttp2_session_want_write(session) != 0 {
            var data: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &data)
            if n < 0 { close(); return }
            if n == 0 { break }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
            if output.count - outputOffset >= 1 << 16 && !writeOutput() { return }
        }
        guard writeOutput() else { return }
        if output.count == outputOffset {
            if closeWhenFlushed || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0) {
                closeGracefully()
            }
        }
    }

    // Returns false when the connection closed.
    private func writeOutput() -> Bool {
        while outputOffset < output.count {
            ERR_clear_error()
            let n = output.withUnsafeBytes { bytes in
                SSL_write(ssl, bytes.baseAddress! + outputOffset, Int32(min(output.count - outputOffset, 1 << 20)))
            }
            if n <= 0 {
                let error = SSL_get_error(ssl, n)
                if error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ {
                    setWritableInterest(true)
                    return true
                }
                close()
                return false
            }
            outputOffset += Int(n)
        }
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
        outputOffset = 0
        setWritableInterest(false)
        return true
    }

    private func setWritableInterest(_ wanted: Bool) {
        guard wanted != wantsWritable else { return }
        wantsWritable = wanted
        loop.updateInterest(fd: fd, writable: wanted)
    }

    /// Ends the connection after the last answer: close_notify, FIN, then read and discard until the peer
    /// closes too. Closing with unread input would make the kernel send RST, and a client receiving RST may
    /// drop answers it had not read yet — answers the simulator already counted.
    private func closeGracefully() {
        guard !draining, !closed else { return }
        draining = true
        _ = SSL_shutdown(ssl)
        Glibc.shutdown(fd, Int32(SHUT_WR))
        setWritableInterest(false)
        loop.schedule(afterMilliseconds: 2000) { [weak self] in self?.close() }
        drain()
    }

    private func drain() {
        loop.readBuffer.withUnsafeMutableBytes { buffer in
            while true {
                let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if n > 0 { continue }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
                close()
                return
            }
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        loop.remove(connection: self)
        shared.stats.connectionEvent(id, closed: true)
    }

    // MARK: Requests

    func requestComplete(streamID: Int32, state: StreamState) {
        if let goawayStream, streamID > goawayStream {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_REFUSED_STREAM.rawValue)
            return
        }
        if state.check.isStatsPath && state.check.sawMethod && !state.check.methodIsPost {
            state.responseBody = shared.stats.json()
            respond(streamID: streamID, state: state, status: 200, apnsID: nil, contentType: true)
            return
        }
        requests += 1
        window.record(now: monotonicNanoseconds())
        let faults = shared.scenario.scenario.connection
        if faulty, let closeAfter = faults.closeAfter, requests >= closeAfter {
            // An abrupt close: the peer sees the TCP connection drop with this request unanswered.
            Glibc.shutdown(fd, Int32(SHUT_RDWR))
            close()
            return
        }
        answer(streamID: streamID, state: state)
        if faulty, goawayStream == nil, let goawayAfter = faults.goawayAfter, requests >= goawayAfter {
            goawayStream = streamID
            let debug = Array(#"{"reason":"Shutdown"}"#.utf8)
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_NO_ERROR.rawValue, debug, debug.count)
            shared.stats.connectionEvent(id, goaway: true)
            closeWhenFlushed = true
        }
    }

    private func answer(streamID: Int32, state: StreamState) {
        var check = state.check
        let now = Date().timeIntervalSince1970
        var status = 200
        var reason: Reason?
        var timestamp: Int64?
        var delay = 0
        var failure: (String, String)?
        var der = false
        if let problem = check.finalProblem() {
            (status, reason) = problem
            failure = (problem.reason.rawValue, check.problemExample)
        } else {
            let verdict = auth.check(check.authorization, now: now)
            der = verdict.der
            if let problem = verdict.problem {
                (status, reason) = problem
            } else {
                if !authorizedOnce {
                    authorizedOnce = true
                    if shared.scenario.scenario.connection.singleStreamUntilAuthorized == true {
                        submitSettings(maxStreams: shared.maxConcurrentStreams)
                    }
                }
                if let token = check.token,
                   let scripted = shared.scenario.answer(token: token, nowMilliseconds: Int64(now * 1000)) {
                    (status, reason, timestamp, delay) = scripted
                }
            }
        }
        shared.stats.record(connection: id, status: status, token: check.token, windowMaximum: window.maximum,
                            distinctTokens: auth.distinctTokens, derSignature: der, failure: failure)
        if let reason { state.responseBody = ErrorResponse(status: status, reason: reason, timestamp: timestamp).jsonBody }
        let apnsID = check.apnsID
        if delay > 0 {
            loop.schedule(afterMilliseconds: delay) { [weak self] in
                guard let self, !self.closed, nghttp2_session_find_stream(self.session, streamID) != nil else { return }
                self.respond(streamID: streamID, state: state, status: status, apnsID: apnsID, contentType: reason != nil)
                self.flush()
            }
        } else {
            respond(streamID: streamID, state: state, status: status, apnsID: apnsID, contentType: reason != nil)
        }
    }

    private func respond(streamID: Int32, state: StreamState, status: Int, apnsID: [UInt8]?, contentType: Bool) {
        var headers = [nghttp2_nv](repeating: nghttp2_nv(), count: 3)
        var count = 0
        func add(_ name: ByteString, _ value: UnsafeBufferPointer<UInt8>) {
            headers[count] = nghttp2_nv(name: UnsafeMutablePointer(mutating: name.pointer), value: UnsafeMutablePointer(mutating: value.baseAddress),
                                        namelen: name.count, valuelen: value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            count += 1
        }
        // nghttp2 copies names and values on submit, so stack and scratch buffers are fine here.
        let statusText = ResponseHeaders.status(status)
        add(ResponseHeaders.statusName, statusText.buffer)
        if let apnsID {
            apnsID.withUnsafeBufferPointer { add(ResponseHeaders.apnsIDName, $0) }
        } else {
            writeRandomUUID(into: apnsIDScratch)
            add(ResponseHeaders.apnsIDName, UnsafeBufferPointer(apnsIDScratch))
        }
        if contentType { add(ResponseHeaders.contentTypeName, ResponseHeaders.json.buffer) }
        if state.responseBody.isEmpty {
            nghttp2_submit_response(session, streamID, headers, count, nil)
        } else {
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: h2ReadBody)
            nghttp2_submit_response(session, streamID, headers, count, &provider)
        }
    }

    /// A random version-4 UUID in canonical lowercase form, as APNs makes when the request had no apns-id.
    private func writeRandomUUID(into out: UnsafeMutableBufferPointer<UInt8>) {
        var high = random.next()
        var low = random.next()
        high = (high & ~0xF000) | 0x4000
        low = (low & ~(0xC << 60)) | (0x8 << 60)
        let digits: StaticString = "0123456789abcdef"
        var position = 0
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 {
                out[position] = UInt8(ascii: "-")
                position += 1
            }
            let word = i < 16 ? high : low
            let nibble = Int((word >> UInt64(60 - 4 * (i % 16))) & 0xF)
            out[position] = digits.utf8Start[nibble]
            position += 1
        }
    }
}

/// Header names and common values the simulator answers with, built once.
private enum ResponseHeaders {
    static let statusName = ByteString(":status")
    static let apnsIDName = ByteString("apns-id")
    static let contentTypeName = ByteString("content-type")
    static let json = ByteString("application/json")
    private static let common: [Int: ByteString] = [
        200: ByteString("200"), 400: ByteString("400"), 403: ByteString("403"), 404: ByteString("404"),
        405: ByteString("405"), 410: ByteString("410"), 413: ByteString("413"), 429: ByteString("429"),
        500: ByteString("500"), 503: ByteString("503"),
    ]

    static func status(_ code: Int) -> ByteString { common[code] ?? common[500]! }
}

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
