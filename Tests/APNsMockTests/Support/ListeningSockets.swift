import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Which of this host's IPv4 addresses accept TCP connections on a port: asked by connecting to 127.0.0.1 and to
/// each interface's address (getifaddrs). Not read from /proc/net/tcp: the kernel writes that table a page at a
/// time, and a read while other tests open and close connections missed the very row asked about.
enum ListeningSockets {
    /// The dotted addresses that accepted a connection on `port`.
    static func accepting(port: Int) -> [String] {
        addresses().filter { accepts($0, port: port) }.sorted()
    }

    /// 127.0.0.1 and every IPv4 address of an interface that is up.
    private static func addresses() -> [String] {
        var found: Set<String> = ["127.0.0.1"]
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return Array(found) }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                current.pointee.ifa_flags & UInt32(IFF_UP) != 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
            found.insert(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Array(found)
    }

    /// Whether a connection to `address`:`port` is accepted (refused or timed out after 5 s: not).
    private static func accepts(_ address: String, port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, address, &target.sin_addr) == 1 else { return false }
        return withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
