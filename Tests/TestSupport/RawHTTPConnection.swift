import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection to 127.0.0.1 written byte by byte as a test chooses (a head alone, a trickle, nothing),
/// read without blocking a thread: waits poll a non-blocking socket between short sleeps. Used by one task at a time.
public final class RawHTTPConnection: @unchecked Sendable {
    /// An answer read off the connection.
    public struct Answer: Sendable {
        public var status: Int
        /// Names lowercased.
        public var headers: [String: String]
        public var body: String
    }

    public let socket: Int32
    private var received: [UInt8] = []
    private var ended = false

    public init(port: Int) throws {
        socket = try LoopbackSocket.connect(port: port)
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
    }

    deinit { Glibc.close(socket) }

    /// Sends `text` whole; false when the server has closed or reset the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0, errno == EAGAIN || errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// The next answer (a `Content-Length` body, or up to the close), skipping `100 Continue` unless `interim`; nil
    /// when none came whole within `seconds`.
    public func answer(within seconds: Double = 90, interim: Bool = false) async -> Answer? {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if let answer = parse() {
                if answer.status == 100, !interim { continue }
                return answer
            }
            if ended { return nil }
            await readSome()
        }
        return nil
    }

    /// Whether the server ends the connection (end of stream or reset) within `seconds`; what it sends first is kept.
    public func closed(within seconds: Double = 90) async -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        while !ended, ContinuousClock.now < end { await readSome() }
        return ended
    }

    /// Reads what is there, or sleeps a moment when nothing is.
    private func readSome() async {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            received += chunk[0..<count]
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
            ended = true
        } else {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Takes one whole answer off the front of what was received.
    private func parse() -> Answer? {
        let marker: [UInt8] = [13, 10, 13, 10]
        guard received.count >= 4,
            let headEnd = (0...(received.count - 4)).first(where: { Array(received[$0..<($0 + 4)]) == marker })
        else { return nil }
        let lines = String(decoding: received[0..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let fields = lines.first?.split(separator: " ") ?? []
        guard fields.count >= 2, let status = Int(fields[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let bodyStart = headEnd + 4
        let length: Int
        if status == 100 || status == 204 || status == 304 {
            length = 0
        } else if let declared = headers["content-length"].flatMap({ Int($0) }) {
            length = declared
        } else {
            guard ended else { return nil }
            length = received.count - bodyStart
        }
        guard received.count - bodyStart >= length else { return nil }
        let body = String(decoding: received[bodyStart..<(bodyStart + length)], as: UTF8.self)
        received.removeFirst(bodyStart + length)
        return Answer(status: status, headers: headers, body: body)
    }
}
