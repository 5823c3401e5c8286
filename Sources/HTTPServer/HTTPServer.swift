internal import CMicroHTTPD
import Foundation
import Threads

/// What answers a request: async, so a long-poll waits without holding a server thread (its connection is
/// suspended meanwhile).
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse

/// The API's HTTP/1.1 layer: libmicrohttpd with its own polling thread (epoll on Linux), keep-alive, optional TLS
/// (GnuTLS), bodies limited per route before they are read, handlers run as tasks while their connection is
/// suspended, and a graceful stop. It never logs headers (they carry credentials).
public final class HTTPServer: @unchecked Sendable {
    /// The body limit when the `bodyLimit` closure does not raise it: 1 MiB.
    public static let defaultBodyLimit = 1 << 20

    /// How many connections, how slow, how many daemon threads.
    public struct Options: Sendable {
        /// Connections open at once; more wait in the listen backlog.
        public var connectionLimit = 512
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
        public init() {}
    }

    /// The address actually bound (with the kernel's port when 0 was asked for).
    public var address: ListenAddress { requested.with(port: boundPort) }
    public var isTLS: Bool { tlsStrings != nil }

    let requested: ListenAddress
    /// Read from the daemon once it listens; not changed after `start` returns.
    var boundPort = 0
    let handler: HTTPHandler
    let bodyLimit: @Sendable (String, String) -> Int
    let options: Options
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
        address: ListenAddress, handler: @escaping HTTPHandler, bodyLimit: @escaping @Sendable (String, String) -> Int,
        options: Options
    ) {
        self.requested = address
        self.options = options
        self.handler = handler
        self.bodyLimit = bodyLimit
    }

    /// Starts listening on `listen` (https when `tls` gives a PEM certificate chain and key). `bodyLimit(method, path)`
    /// decides each request's limit before its body is read; a larger body is answered 413 and its connection closed.
    public static func start(
        listen: ListenAddress, tls: (certificatePEM: String, keyPEM: String)? = nil,
        options: Options = Options(),
        bodyLimit: @escaping @Sendable (_ method: String, _ path: String) -> Int = { _, _ in defaultBodyLimit },
        handler: @escaping HTTPHandler
    ) throws -> HTTPServer {
        let server = HTTPServer(address: listen, handler: handler, bodyLimit: bodyLimit, options: options)
        try server.launch(listen: listen, tls: tls, options: options)
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
        }
        if let strings = tlsStrings {
            free(strings.certificate)
            free(strings.key)
            tlsStrings = nil
        }
    }
}
