import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Loopback ports for tests: free ones, and whether something listens.
public enum Ports {
    /// A loopback port nobody listens on right now (bound to 0, read back, closed).
    public static func free() -> Int {
        let (fd, port) = boundLoopbackSocket()
        close(fd)
        return port
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func isListening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        // Linux may pick the destination port as the source port when nothing listens there: the socket then
        // connects to itself (TCP simultaneous open), which is not a listener.
        return connected && localPort(of: fd) != port
    }

    private static func localPort(of fd: Int32) -> Int {
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        return named ? Int(UInt16(bigEndian: local.sin_port)) : 0
    }

    /// Waits until `port` accepts connections (or `timeout` passes).
    public static func waitUntilListening(_ port: Int, timeout: TimeInterval = 10) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if isListening(port) { return true }
            usleep(20_000)
        }
        return false
    }

    /// A loopback socket that listens and never accepts: the kernel completes TCP handshakes, nothing
    /// answers TLS. Returns (descriptor, port); close the descriptor when done.
    public static func silentListener() -> (descriptor: Int32, port: Int) {
        let (fd, port) = boundLoopbackSocket()
        _ = listen(fd, 64)
        return (fd, port)
    }

    /// A loopback port that refuses connections and stays so: bound and not listening, so no other test can take it.
    /// Returns (descriptor, port); close the descriptor when done.
    public static func refusing() -> (descriptor: Int32, port: Int) {
        boundLoopbackSocket()
    }

    /// A TCP socket bound to 127.0.0.1 on a port the kernel picked, and that port.
    private static func boundLoopbackSocket() -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(fd, $0, length)
                _ = getsockname(fd, $0, &length)
            }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
