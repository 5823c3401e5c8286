import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes written by hand to 127.0.0.1 and what came back, for requests no HTTP client would send (a raw NUL, two
/// Content-Length fields) and for counting what the server wrote (one status line, not two).
public enum RawHTTP {
    /// Writes `bytes` (a send the server refuses, having answered and closed, is not an error) and reads until the
    /// server closes or `timeout` seconds pass without data; what was read, and whether the server closed. Runs on a
    /// thread of its own: never blocks a thread of the cooperative pool.
    public static func exchange(port: Int, _ bytes: [UInt8], timeout: Int = 30) async -> (reply: String, closed: Bool) {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: run(port: port, bytes, timeout: timeout)) }
            thread.start()
        }
    }

    /// `exchange` of a text (written as UTF-8, with `\r\n` as given).
    public static func exchange(port: Int, _ text: String, timeout: Int = 30) async -> (reply: String, closed: Bool) {
        await exchange(port: port, Array(text.utf8), timeout: timeout)
    }

    /// The status lines in `reply` (`HTTP/1.1 400 Bad Request`), in order.
    public static func statusLines(_ reply: String) -> [Substring] {
        reply.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/1.") }
    }

    /// The body after the first blank line.
    public static func body(_ reply: String) -> String {
        guard let range = reply.range(of: "\r\n\r\n") else { return "" }
        return String(reply[range.upperBound...])
    }

    private static func run(port: Int, _ bytes: [UInt8], timeout: Int) -> (reply: String, closed: Bool) {
        guard let fd = try? LoopbackSocket.connect(port: port) else { return ("", false) }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { break }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            // A reset after the answer (the server closed with unread bytes) also ends it.
            if count < 0 { return (String(decoding: received, as: UTF8.self), errno == ECONNRESET) }
            received += buffer[..<count]
        }
    }
}
