import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP connection to 127.0.0.1, for test clients that write raw bytes (HTTP/1.1, HTTP/2 frames).
public enum LoopbackSocket {
    /// Why no connection was made.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A connected socket (close-on-exec) to `127.0.0.1:port`; close it with `close(2)`. `receiveBuffer` sets
    /// SO_RCVBUF first (a client that never reads then holds little in its kernel buffers).
    public static func connect(port: Int, receiveBuffer: Int32? = nil) throws(Failure) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): \(message)")
        }
        return fd
    }
}
