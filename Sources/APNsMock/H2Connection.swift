import APNs
internal import CNGHTTP2
internal import COpenSSL
import Foundation
import Threads

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection: TLS on a non-blocking socket, an nghttp2 server session, and APNs's answers.
/// Lives on one event loop thread only.
///
/// What one client can make it hold is bounded: its streams (SETTINGS_MAX_CONCURRENT_STREAMS, enforced by nghttp2)
/// and what each keeps (`RequestCheck`), the token verdicts (`ConnectionAuth`), and the answers waiting for the
/// socket (`outputLimit`: past it the connection stops reading until the client takes them). It is dropped when
/// its TLS handshake takes longer than the handshake timeout, sent GOAWAY when it carries no request for the idle
/// timeout, and sent GOAWAY(ENHANCE_YOUR_CALM) when it resets too many streams before they complete.
final class H2Connection {
    /// Answers waiting for the socket, at most: past this the connection stops reading and stops asking nghttp2
    /// for more, until EPOLLOUT (POLLOUT) lets it write. 256 KiB is a few thousand answers, far more than a
    /// client that reads ever leaves behind.
    static let outputLimit = 256 * 1024
    /// Reading resumes once the waiting answers are below this.
    static let outputResume = 64 * 1024
    /// Bytes read, or answers made, by one connection in one turn of the loop before the others get theirs.
    static let turnBytes = 64 * 1024
    /// Streams a client may reset before they complete: a burst, then a rate per second (nghttp2's own defaults).
    static let earlyResetBurst = 1000.0
    static let earlyResetsPerSecond = 33.0
    /// How long a connection that was told to go (GOAWAY) may take to take its last frames before it is dropped.
    static let goodbyeNanoseconds: UInt64 = 2_000_000_000

    let id: Int
    let fd: Int32
    private let ssl: OpaquePointer
    private var session: OpaquePointer?
    private let shared: MockShared
    private unowned let loop: EventLoop
    private var handshakeDone = false
    private var handshakeWantsWrite = false
    private var readWantsWrite = false
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var outputBlocked = false
    /// Reading is paused while the answers already made wait for the socket.
    private var readPaused = false
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
    private let uniqueIDScratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 36)
    /// The client certificate presented in the handshake, judged once; nil when none was (or none is asked for).
    private var clientCertificate: ClientCertificate?
    /// The last team-topic verdict: a connection sends one topic over and over, so the next costs a memcmp.
    private var lastTopicVerdict: (team: Int, topic: [UInt8], allowed: Bool)?
    private let acceptedAt: UInt64
    /// Request frames received and answers sent; `tick` turns a change into `lastActivity` (no clock read per frame).
    private var activity = 0
    private var activitySeen = 0
    private var lastActivity: UInt64
    /// Set once the connection was told to go: dropped at this time if it has not gone by then.
    private var dropAt: UInt64?
    private var delayedAnswers = 0
    private var statsInFlight = 0
    private var resetAllowance = H2Connection.earlyResetBurst
    private var resetAllowanceAt: UInt64
    /// The state of each open request stream, by stream id. nghttp2 keeps only an unretained pointer to it (stream
    /// user data): nghttp2_session_del frees open streams without calling on_stream_close, so a connection that
    /// goes away mid-request (abrupt close, GOAWAY, stop, a client that never finishes its requests) must own what
    /// its streams point at.
    var streams: [Int32: StreamState] = [:]

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
        acceptedAt = MonotonicClock.nanoseconds()
        lastActivity = acceptedAt
        resetAllowanceAt = acceptedAt
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit {
        // No callbacks run here: the streams' state goes with `streams`.
        if let session { nghttp2_session_del(session) }
        SSL_free(ssl)
        apnsIDScratch.deallocate()
        uniqueIDScratch.deallocate()
    }

    /// What the event loop should wait for on this socket.
    var wantsRead: Bool { !handshakeDone || draining || !readPaused }
    var wantsWrite: Bool { handshakeDone ? (outputBlocked || readWantsWrite) && !draining : handshakeWantsWrite }

    // MARK: I/O

    func readable() {
        if draining {
            drain()
            return
        }
        if !handshakeDone && !handshake() { return }
        service()
    }

    func writable() {
        if !handshakeDone {
            _ = handshake()
            return
        }
        service()
    }

    private func handshake() -> Bool {
        if shared.scenario.scenario.connection.failHandshakes?.contains(id) == true {
            close()
            return false
        }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone = true
            handshakeWantsWrite = false
            lastActivity = MonotonicClock.nanoseconds()
            if shared.asksClientCertificates { clientCertificate = ClientCertificate.judge(ssl) }
            startSession()
            return true
        }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE {
            handshakeWantsWrite = error == SSL_ERROR_WANT_WRITE
        } else {
            ERR_clear_error()
            close()
        }
        return false
    }

    private func startSession() {
        nghttp2_session_server_new2(&session, h2Callbacks, Unmanaged.passUnretained(self).toOpaque(), h2Options)
        let streams =
            shared.scenario.scenario.connection.singleStreamUntilAuthorized == true ? 1 : shared.maxConcurrentStreams
        submitSettings(maxStreams: streams)
    }

    private func submitSettings(maxStreams: Int) {
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(maxStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    private var pendingOutput: Int { output.count - outputOffset }

    /// Reads requests, answers them and writes the answers, as far as the socket allows either way: reading stops
    /// while `outputLimit` bytes of answers wait, and resumes below `outputResume`.
    func service() {
        guard handshakeDone, session != nil else { return }
        var readThisTurn = false
        while !closed && !draining {
            if !readPaused && !readThisTurn {
                readRecords()
                readThisTurn = true
            }
            guard !closed, !draining else { return }
            flushOutput()
            guard !closed, !draining else { return }
            if readPaused && pendingOutput < Self.outputResume {
                readPaused = false
                // Input that waited meanwhile may sit in OpenSSL's buffer, which poll cannot see: read it now, or
                // (this connection had its turn) in the next one.
                if readThisTurn { loop.again(self) } else { continue }
            }
            break
        }
        guard !closed, !draining, let session, pendingOutput == 0 else { return }
        if closeWhenFlushed || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0) {
            closeGracefully()
        }
    }

    /// TLS records into nghttp2, one at a time (each at most 16 KB), until the socket is empty, answers back up, or
    /// this turn's share is used (`turnBytes` read or answered: other connections on the loop get theirs; poll
    /// reports the rest at once).
    private func readRecords() {
        readWantsWrite = false
        let outputAtStart = pendingOutput
        var readThisTurn = 0
        loop.readBuffer.withUnsafeMutableBytes { buffer in
            while !closed && !draining && readThisTurn < Self.turnBytes
                && pendingOutput - outputAtStart < Self.turnBytes
            {
                // OpenSSL's error queue is per thread and shared by this loop's connections: an error left by one
                // (a peer killed mid-stream) would make SSL_get_error call another's WANT_READ fatal, closing it.
                ERR_clear_error()
                let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                if n <= 0 {
                    let error = SSL_get_error(ssl, n)
                    if error == SSL_ERROR_WANT_WRITE {
                        readWantsWrite = true
                    } else if error != SSL_ERROR_WANT_READ {
                        ERR_clear_error()
                        close()
                    }
                    return
                }
                readThisTurn += Int(n)
                let consumed = nghttp2_session_mem_recv(
                    session, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int(n))
                if consumed < 0 {
                    close()
                    return
                }
                generate()
                if pendingOutput >= 1 << 16 { _ = writeOutput() }
                if closed { return }
                if pendingOutput >= Self.outputLimit {
                    readPaused = true
                    return
                }
            }
        }
        // Out of turn with input already inside OpenSSL, where poll cannot see it: come back next turn.
        if !closed && !draining && !readPaused && SSL_has_pending(ssl) == 1 { loop.again(self) }
    }

    /// Moves nghttp2's pending frames into the output buffer, up to `outputLimit`; the rest waits in nghttp2.
    private func generate() {
        guard !closed, let session else { return }
        while pendingOutput < Self.outputLimit && nghttp2_session_want_write(session) != 0 {
            var data: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &data)
            if n < 0 {
                close()
                return
            }
            if n == 0 { return }
            if outputOffset > 0 && outputOffset == output.count {
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
            }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
        }
    }

    /// Generates and writes until nghttp2 has nothing more or the socket takes no more.
    private func flushOutput() {
        while !closed {
            generate()
            guard pendingOutput > 0, !closed else { return }
            guard writeOutput() else { return }
        }
    }

    /// Writes the output buffer; returns true when all of it went out, false when the socket is full (the loop
    /// then waits for it to be writable) or the connection closed.
    private func writeOutput() -> Bool {
        while outputOffset < output.count {
            ERR_clear_error()
            let n = output.withUnsafeBytes { bytes in
                SSL_write(ssl, bytes.baseAddress! + outputOffset, Int32(min(output.count - outputOffset, 1 << 20)))
            }
            if n <= 0 {
                let error = SSL_get_error(ssl, n)
                if error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ {
                    outputBlocked = true
                    // Keep the buffer from creeping: drop what went out once it is most of it.
                    if outputOffset > output.count / 2 {
                        output.removeFirst(outputOffset)
                        outputOffset = 0
                    }
                    return false
                }
                ERR_clear_error()
                close()
                return false
            }
            outputOffset += Int(n)
        }
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
        outputOffset = 0
        outputBlocked = false
        return true
    }

    /// Ends the connection after the last answer: close_notify, FIN, then read and discard until the peer
    /// closes too. Closing with unread input would make the kernel send RST, and a client receiving RST may
    /// drop answers it had not read yet — answers the simulator already counted.
    private func closeGracefully() {
        guard !draining, !closed else { return }
        draining = true
        _ = SSL_shutdown(ssl)
        Glibc.shutdown(fd, Int32(SHUT_WR))
        dropAt = MonotonicClock.nanoseconds() + Self.goodbyeNanoseconds
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

    // MARK: Timeouts and guards

    /// Called by the loop a few times a second: the handshake and idle timeouts, and connections told to go that
    /// did not.
    func tick(now: UInt64) {
        guard !closed else { return }
        if let dropAt, now >= dropAt {
            close()
            return
        }
        if !handshakeDone {
            if now &- acceptedAt >= shared.handshakeTimeout { close() }
            return
        }
        if activity != activitySeen {
            activitySeen = activity
            lastActivity = now
        }
        guard !draining, dropAt == nil, shared.idleTimeout > 0, delayedAnswers == 0,
            now &- lastActivity >= shared.idleTimeout
        else { return }
        // As APNs does with a connection that carries nothing: GOAWAY, then close once it is written (or soon).
        let debug = Array(#"{"reason":"IdleTimeout"}"#.utf8)
        nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
            NGHTTP2_NO_ERROR.rawValue, debug, debug.count)
        shared.stats.connectionEvent(id, goaway: true)
        closeWhenFlushed = true
        dropAt = now + Self.goodbyeNanoseconds
        service()
    }

    /// A request frame (HEADERS or DATA) arrived: the connection is not idle.
    func requestActivity() { activity &+= 1 }

    /// The client reset a stream the simulator still held. Past the allowance the connection is told to calm down
    /// and closed: opening streams and resetting them at once is the rapid-reset attack (CVE-2023-44487).
    func streamResetEarly() {
        let now = MonotonicClock.nanoseconds()
        resetAllowance = min(
            Self.earlyResetBurst, resetAllowance + Double(now &- resetAllowanceAt) / 1e9 * Self.earlyResetsPerSecond)
        resetAllowanceAt = now
        resetAllowance -= 1
        guard resetAllowance < 0, dropAt == nil else { return }
        nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
        shared.stats.connectionEvent(id, goaway: true)
        closeWhenFlushed = true
        dropAt = now + Self.goodbyeNanoseconds
    }

    func streamClosed(_ streamID: Int32) {
        if let state = streams.removeValue(forKey: streamID), state.isStatsRequest { statsInFlight -= 1 }
    }

    /// The connection's verdict on an authorization header, as it arrives.
    func judgeAuthorization(_ header: UnsafeBufferPointer<UInt8>) -> PresentedAuthorization {
        auth.judge(header) { Date().timeIntervalSince1970 }
    }

    // MARK: Requests

    func requestComplete(streamID: Int32, state: StreamState) {
        guard !closed else { return }  // closed by an earlier request in the same read (closeAfter)
        if let goawayStream, streamID > goawayStream {
            nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_REFUSED_STREAM.rawValue)
            return
        }
        if state.check.isStatsPath && state.check.sawMethod && !state.check.methodIsPost {
            // The body is the whole statistics: one at a time per connection.
            if statsInFlight > 0 {
                state.responseBody = ErrorResponse(status: 429, reason: .tooManyRequests, timestamp: nil).jsonBody
                respond(streamID: streamID, state: state, status: 429, apnsID: nil, contentType: true)
                return
            }
            statsInFlight += 1
            state.isStatsRequest = true
            state.responseBody = shared.stats.json()
            respond(streamID: streamID, state: state, status: 200, apnsID: nil, contentType: true)
            return
        }
        requests += 1
        window.record(now: MonotonicClock.nanoseconds())
        if let arrivals = shared.arrivals, state.check.channel == nil { arrivals.record(apnsID: state.check.apnsID) }
        let faults = shared.scenario.scenario.connection
        if faulty, let closeAfter = faults.closeAfter, requests >= closeAfter {
            // An abrupt close: the peer sees the TCP connection drop with this request unanswered.
            Glibc.shutdown(fd, Int32(SHUT_RDWR))
            close()
            return
        }
        if state.check.channel != nil {
            answerChannel(streamID: streamID, state: state)
        } else {
            answer(streamID: streamID, state: state)
        }
        if faulty, goawayStream == nil, let goawayAfter = faults.goawayAfter, requests >= goawayAfter {
            goawayStream = streamID
            let debug = Array(#"{"reason":"Shutdown"}"#.utf8)
            nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_NO_ERROR.rawValue, debug, debug.count)
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
        // A request without a token on a connection that presented a certificate is judged by the certificate (which
        // names the default topic when the request names none, as Apple documents).
        let byCertificate = check.authorization == nil && clientCertificate != nil && !auth.spoiled
        if let problem = check.finalProblem(topicOptional: byCertificate) {
            (status, reason) = problem
            failure = (problem.reason.rawValue, check.problemExample)
        } else {
            var refusal: (Int, Reason)?
            if byCertificate, let clientCertificate {
                refusal = clientCertificate.problem(
                    topic: check.sawTopic ? check.topic : nil, environment: shared.environment)
                if case .valid(let bundleID, _) = clientCertificate, refusal?.1 == .topicDisallowed {
                    failure = (
                        Reason.topicDisallowed.rawValue, "\(check.topicExample) with a certificate for \(bundleID)"
                    )
                }
            } else {
                let verdict = auth.check(check.authorization, now: now)
                der = verdict.der
                refusal = verdict.problem
                if refusal == nil, shared.teamsRestrictTopics, let team = verdict.team, !teamMayPush(team, check) {
                    refusal = (400, .topicDisallowed)
                    failure = (
                        Reason.topicDisallowed.rawValue,
                        "\(check.topicExample) for team \(shared.verifier.teams[team].credential.teamId)"
                    )
                }
            }
            if let refusal {
                (status, reason) = refusal
            } else {
                authorized()
                if let token = check.token,
                    let scripted = shared.scenario.answer(token: token, nowMilliseconds: Int64(now * 1000))
                {
                    (status, reason, timestamp, delay) = scripted
                }
            }
        }
        shared.stats.record(
            connection: id, status: status, reason: reason?.rawValue, token: check.token, windowMaximum: window.maximum,
            distinctTokens: auth.distinctTokens, derSignature: der, failure: failure)
        if let reason {
            state.responseBody = ErrorResponse(status: status, reason: reason, timestamp: timestamp).jsonBody
        }
        let apnsID = check.apnsID
        if delay > 0 {
            delayedAnswers += 1
            loop.schedule(afterMilliseconds: delay) { [weak self] in
                guard let self, !self.closed else { return }
                self.delayedAnswers -= 1
                guard nghttp2_session_find_stream(self.session, streamID) != nil else { return }
                self.respond(
                    streamID: streamID, state: state, status: status, apnsID: apnsID, contentType: reason != nil)
                self.service()
            }
        } else {
            respond(streamID: streamID, state: state, status: status, apnsID: apnsID, contentType: reason != nil)
        }
    }

    /// A request passed its credentials: the first one lifts the single-stream limit, when the scenario sets it.
    private func authorized() {
        guard !authorizedOnce else { return }
        authorizedOnce = true
        if shared.scenario.scenario.connection.singleStreamUntilAuthorized == true {
            submitSettings(maxStreams: shared.maxConcurrentStreams)
        }
    }

    /// Answers a request to the broadcast paths: channel management or a broadcast send. The order is APNs's as
    /// Apple describes it: the request's own form, then its credentials, then the app (topic, capability), then the
    /// channel it names.
    private func answerChannel(streamID: Int32, state: StreamState) {
        let check = state.check
        guard let request = check.channel else { return }
        let operation = check.sawMethod ? request.operation(method: check.method) : nil
        var status = 200
        var reason: Reason?
        var failure: (String, String)?
        var der = false
        var delay = 0
        var channelIDOut: [UInt8]?
        var body: [UInt8] = []
        func refuse(_ refusal: (status: Int, reason: Reason), _ example: String?) {
            (status, reason) = refusal
            if let example { failure = (refusal.reason.rawValue, example) }
        }
        decide: do {
            guard let operation else {
                refuse((405, .methodNotAllowed), nil)
                break decide
            }
            if let duplicate = check.headerProblem {
                refuse((400, duplicate), check.problemExample)
                break decide
            }
            if let problem = request.shapeProblem(operation: operation, bodyBytes: check.bodyBytes) {
                refuse(problem, request.example)
                break decide
            }
            let byCertificate = check.authorization == nil && clientCertificate != nil && !auth.spoiled
            if byCertificate, let clientCertificate {
                if let refusal = clientCertificate.problem(topic: request.bundleID, environment: shared.environment) {
                    var example: String?
                    if case .valid(let bundleID, _) = clientCertificate, refusal.1 == .topicDisallowed {
                        example = "\(request.bundleID) with a certificate for \(bundleID)"
                    }
                    refuse(refusal, example)
                    break decide
                }
            } else {
                let verdict = auth.check(check.authorization, now: Date().timeIntervalSince1970)
                der = verdict.der
                if let refusal = verdict.problem {
                    refuse(refusal, nil)
                    break decide
                }
                if shared.teamsRestrictTopics, let team = verdict.team,
                    !shared.verifier.teams[team].allows(topic: request.bundleID)
                {
                    refuse(
                        (400, .topicDisallowed),
                        "\(request.bundleID) for team \(shared.verifier.teams[team].credential.teamId)")
                    break decide
                }
            }
            authorized()
            if request.bundleIDHasPushTypeSuffix {
                refuse(
                    (400, .topicDisallowed),
                    "\(String(request.bundleID.prefix(RequestCheck.exampleBytes))): broadcast paths take the bare bundle id"
                )
                break decide
            }
            if shared.channels.featureDisabled(bundleID: request.bundleID) {
                refuse((400, ChannelReason.featureNotEnabled), "\(request.bundleID) has no Broadcast capability")
                break decide
            }
            let channels = shared.channels
            switch operation {
            case .create:
                guard let id = channels.create(bundleID: request.bundleID, policy: request.requestedPolicy) else {
                    refuse(
                        (400, ChannelReason.cannotCreateChannelConfig),
                        "\(request.bundleID) holds \(channels.maxPerApp) channels (or the simulator its limit)")
                    break decide
                }
                status = 201
                channelIDOut = Array(id.utf8)
            case .read:
                guard let id = request.channelID, let policy = channels.policy(bundleID: request.bundleID, id: id)
                else {
                    refuse(
                        (400, ChannelReason.channelNotRegistered),
                        request.channelID.map { String($0.prefix(RequestCheck.exampleBytes)) })
                    break decide
                }
                body = Array("{\"message-storage-policy\":\(policy),\"push-type\":\"LiveActivity\"}".utf8)
            case .delete:
                guard let id = request.channelID, channels.delete(bundleID: request.bundleID, id: id) else {
                    refuse(
                        (400, ChannelReason.channelNotRegistered),
                        request.channelID.map { String($0.prefix(RequestCheck.exampleBytes)) })
                    break decide
                }
                status = 204
            case .list:
                let ids = channels.list(bundleID: request.bundleID)
                body = Array("{\"channels\":[\(ids.map { "\"\($0)\"" }.joined(separator: ","))]}".utf8)
            case .broadcast:
                guard let id = request.channelID else { break decide }
                switch channels.broadcast(bundleID: request.bundleID, id: id, expiration: request.expiration) {
                case .notRegistered:
                    refuse((400, ChannelReason.channelNotRegistered), String(id.prefix(RequestCheck.exampleBytes)))
                case .expirationOnNoStorage:
                    refuse(
                        (400, .badExpirationDate),
                        "apns-expiration \(request.expiration ?? 0) on a channel that stores no message")
                case .scripted(let scriptedStatus, let scriptedReason, let delayMs):
                    (status, reason, delay) = (scriptedStatus, scriptedReason, delayMs)
                case .accepted(let delayMs):
                    delay = delayMs
                }
            }
        }
        shared.stats.record(
            connection: id, status: status, reason: reason?.rawValue, token: nil, windowMaximum: window.maximum,
            distinctTokens: auth.distinctTokens, derSignature: der, failure: failure)
        shared.channels.record(operation: operation, reason: reason)
        if let reason { body = ErrorResponse(status: status, reason: reason).jsonBody }
        state.responseBody = body
        var headers: [(ByteString, [UInt8])] = [(ResponseHeaders.requestIDName, request.requestID ?? randomUUID())]
        if let channelIDOut { headers.append((ResponseHeaders.channelIDName, channelIDOut)) }
        if status == 200 && operation == .broadcast && shared.environment == .development {
            // As for device pushes: the sandbox's id for its delivery log (Pushy reads it from broadcast answers too).
            headers.append((ResponseHeaders.uniqueIDName, randomUUID()))
        }
        if !body.isEmpty { headers.append((ResponseHeaders.contentTypeName, Array(ResponseHeaders.json.buffer))) }
        if delay > 0 {
            delayedAnswers += 1
            loop.schedule(afterMilliseconds: delay) { [weak self] in
                guard let self, !self.closed else { return }
                self.delayedAnswers -= 1
                guard nghttp2_session_find_stream(self.session, streamID) != nil else { return }
                self.respondChannel(streamID: streamID, state: state, status: status, headers: headers)
                self.service()
            }
        } else {
            respondChannel(streamID: streamID, state: state, status: status, headers: headers)
        }
    }

    /// Submits a broadcast-path answer: its status, `headers`, and `state.responseBody` when there is one.
    private func respondChannel(streamID: Int32, state: StreamState, status: Int, headers: [(ByteString, [UInt8])]) {
        activity &+= 1
        let all = [(ResponseHeaders.statusName, Array(String(status).utf8))] + headers
        // The values go into one buffer the header list points into; nghttp2 copies both on submit.
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, all.reduce(0) { $0 + $1.1.count }))
        defer { storage.deallocate() }
        var list: [nghttp2_nv] = []
        var offset = 0
        for (name, value) in all {
            _ = UnsafeMutableBufferPointer(rebasing: storage[offset..<(offset + value.count)]).initialize(from: value)
            list.append(
                nghttp2_nv(
                    name: UnsafeMutablePointer(mutating: name.pointer), value: storage.baseAddress! + offset,
                    namelen: name.count, valuelen: value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            offset += value.count
        }
        if state.responseBody.isEmpty {
            nghttp2_submit_response(session, streamID, list, list.count, nil)
        } else {
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: h2ReadBody)
            nghttp2_submit_response(session, streamID, list, list.count, &provider)
        }
    }

    private func randomUUID() -> [UInt8] {
        writeRandomUUID(into: apnsIDScratch)
        return Array(apnsIDScratch)
    }

    private func teamMayPush(_ team: Int, _ check: RequestCheck) -> Bool {
        if let last = lastTopicVerdict, last.team == team, check.topicLength <= RequestCheck.topicBytes,
            last.topic == check.topicTail
        {
            return last.allowed
        }
        let allowed = shared.verifier.teams[team].allows(topic: check.topic)
        lastTopicVerdict = (team, check.topicTail, allowed)
        return allowed
    }

    private func respond(streamID: Int32, state: StreamState, status: Int, apnsID: [UInt8]?, contentType: Bool) {
        activity &+= 1
        var headers = [nghttp2_nv](repeating: nghttp2_nv(), count: 4)
        var count = 0
        func add(_ name: ByteString, _ value: UnsafeBufferPointer<UInt8>) {
            headers[count] = nghttp2_nv(
                name: UnsafeMutablePointer(mutating: name.pointer),
                value: UnsafeMutablePointer(mutating: value.baseAddress),
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
        if status == 200 && shared.environment == .development {
            // Apple's sandbox adds an id for its Push Notifications Console's delivery log; production does not.
            writeRandomUUID(into: uniqueIDScratch)
            add(ResponseHeaders.uniqueIDName, UnsafeBufferPointer(uniqueIDScratch))
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
    static let uniqueIDName = ByteString("apns-unique-id")
    static let contentTypeName = ByteString("content-type")
    static let requestIDName = ByteString("apns-request-id")
    static let channelIDName = ByteString("apns-channel-id")
    static let json = ByteString("application/json")
    private static let common: [Int: ByteString] = [
        200: ByteString("200"), 400: ByteString("400"), 403: ByteString("403"), 404: ByteString("404"),
        405: ByteString("405"), 410: ByteString("410"), 413: ByteString("413"), 429: ByteString("429"),
        500: ByteString("500"), 503: ByteString("503"),
    ]

    static func status(_ code: Int) -> ByteString { common[code] ?? common[500]! }
}
