internal import COpenSSL
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A local APNs: HTTP/2 over TLS, Apple's validation and answers, scripted faults, and statistics.
public final class MockServer: Sendable {
    /// For a process that exits while its event-loop threads may still be ending (apns-mock after SIGTERM):
    /// OpenSSL's at-exit cleanup frees per-thread state that those threads free again as they end (a double free
    /// AddressSanitizer caught). Call once, before anything else uses OpenSSL; the process's memory goes anyway.
    public static func skipOpenSSLCleanupAtExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }

    /// The port actually listened on.
    public let port: Int
    private let shared: MockShared
    private let loops: [EventLoop]

    /// Binds the listening sockets and starts the event loops.
    public init(configuration: MockConfiguration) throws {
        signal(SIGPIPE, SIG_IGN)
        shared = try MockShared(configuration: configuration)
        var port = configuration.port
        var loops: [EventLoop] = []
        for _ in 0..<max(1, configuration.threads) {
            let listener = try Self.listen(host: configuration.host, port: port)
            if port == 0 { port = Self.boundPort(listener) }
            loops.append(try EventLoop(listener: listener, shared: shared))
        }
        self.port = port
        self.loops = loops
        for loop in loops { loop.start() }
    }

    /// A snapshot of the statistics.
    public func stats() -> MockStats { shared.stats.snapshot() }

    /// The statistics as pretty JSON, as served at `/_mock/stats`.
    public func statsJSON() -> [UInt8] { shared.stats.json() }

    /// Closes every connection and stops the loops.
    public func stop() {
        for loop in loops { loop.stop() }
        shared.arrivals?.close()
    }

    private static func listen(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &info) == 0, let address = info else {
            throw MockError.badAddress("\(host):\(port)")
        }
        defer { freeaddrinfo(info) }
        let fd = socket(
            address.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MockError.socket("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0, Glibc.listen(fd, 1024) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw MockError.socket("cannot listen on \(host):\(port): \(message)")
        }
        return fd
    }

    private static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        return withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network byte order.
            Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
        }
    }
}
