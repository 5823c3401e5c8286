internal import CMicroHTTPD
import Foundation
import Threads

/// What answers a request: async, so a long-poll waits without holding a server thread (its connection is
/// suspended meanwhile).
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse

/// The API's HTTP/1.1 layer: libmicrohttpd with its own polling thread (epoll on Linux), keep-alive, optional TLS
/// (GnuTLS), bodies limited per route before they are read, a head check (authentication) before any body byte,
/// a connection budget (head and body deadlines, per-client and global caps with a probe reserve, body bytes in
/// flight), handlers run as tasks while their connection is suspended, and a graceful stop. It never logs headers
/// (they carry credentials).
public final class HTTPServer: @unchecked Sendable {
    /// The body limit when the `bodyLimit` closure does not raise it: 1 MiB.
    public static let defaultBodyLimit = 1 << 20

    /// How many connections, how slow, how many daemon threads.
    public struct Options: Sendable {
        /// Connections served in full at once. Past it, a reserve of `probeReserve` more connections is answered
        /// only on `probePaths` (anything else gets `busy`); beyond that, connections wait in the listen backlog.
        public var maxConnections = 512
        /// Connections kept above `maxConnections` for the probes (libmicrohttpd counts at accept, before the path).
        public var probeReserve = 16
        /// The paths still served past `maxConnections`.
        public var probePaths: Set<String> = ["/healthz", "/readyz", "/metrics"]
        /// Connections from one client address; more are closed at accept. 0: no cap (behind a reverse proxy).
        public var maxConnectionsPerClient = 64
        /// Seconds a request's whole head may take, from the connection's start or its previous request's end.
        public var headerTimeout: Double = 10
        /// Seconds a request's whole body may take, from the end of its head (or of its head check).
        public var bodyTimeout: Double = 60
        /// Body bytes received and held by requests not completed yet; a request that would go over is answered
        /// `bodiesBusy` and its connection closed.
        public var maxBodyBytesInFlight = 256 << 20
        /// Seconds a connection may sit idle (or trickle nothing) before it is closed. Suspended connections (a
        /// handler running) do not time out.
        public var connectionTimeout = 30
        /// Daemon threads (each with its own epoll set): they read bodies and write responses; handlers run on tasks.
        public var threads = 1
        /// The answer to a body over its route's limit (given before the handler runs).
        public var tooLarge = HTTPResponse(status: 413, text: "request body too large\n")
        /// What a request head may hold; beyond it, `refused` answers before any handler runs.
        public var limits = RequestLimits()
        /// The answer to a head refused (400, 414 or 431); its connection is closed after it.
        public var refused: @Sendable (HeadRefusal) -> HTTPResponse = { $0.plainResponse }
        /// The answer to a request the stopping server will not run, or whose handler outlived the stop deadline.
        public var unavailable = HTTPResponse(status: 503, text: "server shutting down\n")
        /// The answer past `maxConnections` to anything but a probe.
        public var busy = HTTPResponse(
            status: 503, headers: ["Content-Type": "text/plain; charset=utf-8", "Retry-After": "1"],
            body: Array("too many connections\n".utf8))
        /// The answer to a body that would take the bytes in flight over `maxBodyBytesInFlight`.
        public var bodiesBusy = HTTPResponse(
            status: 503, headers: ["Content-Type": "text/plain; charset=utf-8", "Retry-After": "1"],
            body: Array("too many request bodies in flight\n".utf8))
        /// Called on a daemon thread for each answer the server gives by itself (`ServerAnswer`), so that those
        /// are counted and logged like the handler's; the head check's refusals are the head check's to record.
        public var answeredByServer: (@Sendable (ServerAnswer) -> Void)?
        public init() {}
    }

    /// The address actually bound (with the kernel's port when 0 was asked for).
    public var address: ListenAddress { requested.with(port: boundPort) }
    public var isTLS: Bool { tlsStrings != nil }

    let requested: ListenAddress
    /// Read from the daemon once it listens; not changed after `start` returns.
    var boundPort = 0
    let handler: HTTPHandler
    let headCheck: HTTPHeadCheck?
    let bodyLimit: @Sendable (String, String) -> Int
    let options: Options
    /// Every open connection and its request's phase; its thread enforces the head and body deadlines.
    let watch: ConnectionWatch
    /// Body bytes held by requests not completed yet (`maxBodyBytesInFlight`).
    let bodyBytes = Locked(0)
    /// The daemon; nil once stopped. Held while resuming a connection, so the daemon cannot stop under it.
    let daemon = Locked<OpaquePointer?>(nil)
    let state = Locked(ServerState())
    var tlsStrings: (certificate: UnsafeMutablePointer<CChar>, key: UnsafeMutablePointer<CChar>)?

    struct ServerState {
        /// Requests begun and not yet completed.
        var active = 0
        /// Requests whose handler runs, by identity: the stop's deadline answers them 503.
        var suspended: [ObjectIdentifier: RequestState] = [:]
        /// Quiesced: responses close their connection.
        var stopping = false
        /// Past the deadline: no connection may be suspended any more.
        var closing = false
    }

    private init(
        address: ListenAddress, handler: @escaping HTTPHandler, headCheck: HTTPHeadCheck?,
        bodyLimit: @escaping @Sendable (String, String) -> Int, options: Options
    ) {
        self.requested = address
        self.options = options
        self.handler = handler
        self.headCheck = headCheck
        self.bodyLimit = bodyLimit
        watch = ConnectionWatch(
            limits: ConnectionWatch.Limits(headerTimeout: options.headerTimeout, bodyTimeout: options.bodyTimeout))
    }

    /// Starts listening on `listen` (https when `tls` gives a PEM certificate chain and key). `bodyLimit(method, path)`
    /// decides each request's limit before its body is read; a larger body is answered 413 and its connection closed.
    /// `headCheck` decides on a request announcing a body before any of it is read (authentication): its refusal
    /// is answered at once and the connection closed.
    public static func start(
        listen: ListenAddress, tls: (certificatePEM: String, keyPEM: String)? = nil,
        options: Options = Options(),
        bodyLimit: @escaping @Sendable (_ method: String, _ path: String) -> Int = { _, _ in defaultBodyLimit },
        headCheck: HTTPHeadCheck? = nil,
        handler: @escaping HTTPHandler
    ) throws -> HTTPServer {
        let server = HTTPServer(
            address: listen, handler: handler, headCheck: headCheck, bodyLimit: bodyLimit, options: options)
        try server.launch(listen: listen, tls: tls, options: options)
        server.watch.start()
        return server
    }

    /// Stops accepting at once, lets requests in progress finish for up to `deadline` (those still running then
    /// are answered 503), then closes every connection and ends the daemon's threads.
    public func stop(deadline: Duration = .seconds(10)) async {
        guard let listener = daemon.withLock({ $0.map { MHD_quiesce_daemon($0) } }) else { return }
        if listener >= 0 { close(listener) }
        state.withLock { $0.stopping = true }
        await waitForRequests(until: ContinuousClock.now + deadline)
        // Past the deadline: answer the handlers still running 503 and give those answers a moment to leave.
        daemon.withLock { if $0 != nil { answerSuspended() } }
        await waitForRequests(until: ContinuousClock.now + .seconds(1))
        shutDown()
    }

    private func waitForRequests(until end: ContinuousClock.Instant) async {
        while state.withLock({ $0.active }) > 0, ContinuousClock.now < end {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Answers every suspended request 503 and resumes it; no connection is suspended after this. Called with the
    /// daemon lock held and the daemon running.
    private func answerSuspended() {
        let pending = state.withLock { state -> [RequestState] in
            state.stopping = true
            state.closing = true
            defer { state.suspended.removeAll() }
            return Array(state.suspended.values)
        }
        for request in pending {
            request.response.withLock { $0 = options.unavailable }
            if let connection = request.connection { MHD_resume_connection(connection) }
        }
    }

    deinit { shutDown() }

    /// Answers still-suspended requests 503, resumes them and stops the daemon (joining its threads).
    private func shutDown() {
        daemon.withLock { daemon in
            guard let running = daemon else { return }
            answerSuspended()
            MHD_stop_daemon(running)
            daemon = nil
            watch.stop()
        }
        if let strings = tlsStrings {
            free(strings.certificate)
            free(strings.key)
            tlsStrings = nil
        }
    }
}
