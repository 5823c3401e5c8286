import COpenSSL
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/2 frame as it travels: 9-byte header, then the payload.
struct H2Frame {
    static let data: UInt8 = 0, headers: UInt8 = 1, rstStream: UInt8 = 3, settings: UInt8 = 4, ping: UInt8 = 6
    static let goaway: UInt8 = 7, windowUpdate: UInt8 = 8, continuation: UInt8 = 9
    static let endStream: UInt8 = 0x1, endHeaders: UInt8 = 0x4, ack: UInt8 = 0x1
    /// Error codes (RFC 9113 §7).
    static let noError: UInt32 = 0, cancel: UInt32 = 0x8, enhanceYourCalm: UInt32 = 0xb

    var type: UInt8
    var flags: UInt8
    var stream: UInt32
    var payload: [UInt8]

    var bytes: [UInt8] {
        let length = payload.count
        return [
            UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
            UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff),
        ] + payload
    }

    /// GOAWAY's last stream id: the highest stream the sender processed.
    var lastStreamID: UInt32? {
        guard type == Self.goaway, payload.count >= 4 else { return nil }
        return payload[0..<4].reduce(0) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
    }

    /// GOAWAY's and RST_STREAM's error code.
    var errorCode: UInt32? {
        let offset = type == Self.goaway ? 4 : type == Self.rstStream ? 0 : -1
        guard offset >= 0, payload.count >= offset + 4 else { return nil }
        return payload[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// For a response HEADERS frame: whether it starts with `:status: 200` as the static-table index (how nghttp2
    /// encodes it). Other statuses are literals, possibly Huffman-coded; decode those with curl instead.
    var isStatus200: Bool { type == Self.headers && payload.first == 0x88 }

    static func settings(_ pairs: [(UInt16, UInt32)] = [], ack: Bool = false) -> H2Frame {
        var payload: [UInt8] = []
        for (id, value) in pairs {
            payload += [
                UInt8(id >> 8), UInt8(id & 0xff), UInt8(value >> 24), UInt8(value >> 16 & 0xff),
                UInt8(value >> 8 & 0xff), UInt8(value & 0xff),
            ]
        }
        return H2Frame(type: Self.settings, flags: ack ? Self.ack : 0, stream: 0, payload: payload)
    }

    static func data(stream: UInt32, _ bytes: [UInt8], endStream: Bool) -> H2Frame {
        H2Frame(type: Self.data, flags: endStream ? Self.endStream : 0, stream: stream, payload: bytes)
    }

    static func rst(stream: UInt32, code: UInt32 = cancel) -> H2Frame {
        H2Frame(
            type: Self.rstStream, flags: 0, stream: stream,
            payload: [UInt8(code >> 24), UInt8(code >> 16 & 0xff), UInt8(code >> 8 & 0xff), UInt8(code & 0xff)])
    }

    static func ping(_ seed: UInt64 = 0) -> H2Frame {
        H2Frame(
            type: Self.ping, flags: 0, stream: 0, payload: (0..<8).map { UInt8(truncatingIfNeeded: seed >> (8 * $0)) })
    }

    /// A header block as HEADERS plus CONTINUATION frames of at most 16,384 bytes (the default SETTINGS_MAX_FRAME_SIZE).
    static func headers(stream: UInt32, block: [UInt8], endStream: Bool) -> [UInt8] {
        let chunk = 16_384
        var out: [UInt8] = []
        var offset = 0
        repeat {
            let end = min(block.count, offset + chunk)
            var flags: UInt8 = end == block.count ? Self.endHeaders : 0
            if offset == 0 && endStream { flags |= Self.endStream }
            out +=
                H2Frame(
                    type: offset == 0 ? Self.headers : Self.continuation, flags: flags, stream: stream,
                    payload: Array(block[offset..<end])
                ).bytes
            offset = end
        } while offset < block.count
        return out
    }
}

/// An HPACK encoder (RFC 7541) for test clients: literals, optionally added to the dynamic table (modelled with
/// the default 4,096-byte size, so later identical fields go out as a one- or two-byte index). Never Huffman.
struct HPACKEncoder {
    private var table: [(name: String, value: String)] = []
    private var size = 0
    private static let capacity = 4096
    private static let staticEntries: [String: Int] = [
        ":method POST": 3, ":method GET": 2, ":scheme https": 7, ":path /": 4,
    ]

    /// Appends one field: a static index when there is one, a dynamic index when `index` put it there before,
    /// else a literal (with incremental indexing when `index`).
    mutating func field(_ name: String, _ value: String, index: Bool = false, into out: inout [UInt8]) {
        if let position = Self.staticEntries["\(name) \(value)"] {
            Self.integer(position, prefix: 7, first: 0x80, into: &out)
            return
        }
        if index, let position = table.firstIndex(where: { $0.name == name && $0.value == value }) {
            Self.integer(62 + position, prefix: 7, first: 0x80, into: &out)
            return
        }
        out.append(index ? 0x40 : 0x00)
        Self.string(name, into: &out)
        Self.string(value, into: &out)
        if index { insert(name, value) }
    }

    /// A whole request's header block.
    mutating func block(_ fields: [(String, String)], index: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        for (name, value) in fields { field(name, value, index: index, into: &out) }
        return out
    }

    private mutating func insert(_ name: String, _ value: String) {
        let entry = name.utf8.count + value.utf8.count + 32
        guard entry <= Self.capacity else {
            table.removeAll()
            size = 0
            return
        }
        while size + entry > Self.capacity, let last = table.popLast() {
            size -= last.name.utf8.count + last.value.utf8.count + 32
        }
        table.insert((name, value), at: 0)
        size += entry
    }

    private static func integer(_ value: Int, prefix: Int, first: UInt8, into out: inout [UInt8]) {
        let limit = (1 << prefix) - 1
        if value < limit {
            out.append(first | UInt8(value))
            return
        }
        out.append(first | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            out.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    private static func string(_ text: String, into out: inout [UInt8]) {
        integer(text.utf8.count, prefix: 7, first: 0, into: &out)
        out += Array(text.utf8)
    }
}

/// A hand-driven HTTP/2 client over TLS for what no well-behaved client does: streams left open, streams reset
/// before their answer, never reading, idling. The socket is non-blocking; sends and reads take deadlines.
final class RawH2 {
    let fd: Int32
    private let ssl: OpaquePointer
    /// Plaintext bytes written so far (frames), and read.
    private(set) var written = 0
    private(set) var read = 0
    /// Whether the server closed the connection (EOF, reset or a TLS error while reading).
    private(set) var closed = false
    private var inbox: [UInt8] = []
    var encoder = HPACKEncoder()

    private nonisolated(unsafe) static let context: OpaquePointer = {
        signal(SIGPIPE, SIG_IGN)  // a write to a connection the server closed fails instead of killing the tests
        let context = SSL_CTX_new(TLS_client_method())!
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        _ = apnsd_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        return context
    }()

    /// Connects, completes TLS (ALPN h2) within `timeout`, and sends the connection preface with SETTINGS.
    init(port: Int, settings: [(UInt16, UInt32)] = [], receiveBuffer: Int32? = nil, timeout: TimeInterval = 10) throws {
        fd = try LoopbackSocket.connect(port: port, receiveBuffer: receiveBuffer)
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        guard let ssl = SSL_new(Self.context) else {
            Glibc.close(fd)
            throw HarnessError("SSL_new failed")
        }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        SSL_set_connect_state(ssl)
        let deadline = Date() + timeout
        while true {
            let result = SSL_do_handshake(ssl)
            if result == 1 { break }
            let error = SSL_get_error(ssl, result)
            guard error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE, Date() < deadline else {
                ERR_clear_error()
                throw HarnessError("TLS handshake failed (SSL error \(error))")
            }
            wait(error == SSL_ERROR_WANT_WRITE ? Int16(POLLOUT) : Int16(POLLIN), until: deadline)
        }
        try send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + H2Frame.settings(settings).bytes, timeout: timeout)
    }

    deinit {
        SSL_free(ssl)
        Glibc.close(fd)
    }

    private func wait(_ events: Int16, until deadline: Date) {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let milliseconds = max(0, min(1000, Int32(deadline.timeIntervalSinceNow * 1000) + 1))
        _ = poll(&entry, 1, milliseconds)
    }

    /// Writes all of `bytes`, waiting up to `timeout` for the server to take them.
    func send(_ bytes: [UInt8], timeout: TimeInterval = 10) throws {
        let deadline = Date() + timeout
        var offset = 0
        while offset < bytes.count {
            let n = trySend(bytes, from: offset)
            if n < 0 { throw HarnessError("TLS write failed after \(offset) of \(bytes.count) bytes") }
            offset += n
            if offset < bytes.count {
                guard Date() < deadline else {
                    throw HarnessError("the server took \(offset) of \(bytes.count) bytes in \(timeout) s")
                }
                wait(Int16(POLLOUT), until: deadline)
            }
        }
    }

    /// Writes what the socket takes now, without waiting; returns the bytes taken (0 when it would block), -1 on error.
    func trySend(_ bytes: [UInt8], from offset: Int = 0) -> Int {
        guard offset < bytes.count else { return 0 }
        let n = bytes.withUnsafeBytes {
            SSL_write(ssl, $0.baseAddress! + offset, Int32(min(bytes.count - offset, 1 << 20)))
        }
        if n > 0 {
            written += Int(n)
            return Int(n)
        }
        let error = SSL_get_error(ssl, n)
        if error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ { return 0 }
        ERR_clear_error()
        return -1
    }

    /// Reads whatever has arrived within `timeout` (at least one chunk if any comes) into the frame inbox.
    /// Returns false when nothing came.
    @discardableResult
    func pump(timeout: TimeInterval) -> Bool {
        let deadline = Date() + timeout
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var got = false
        while !closed {
            let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                inbox += buffer[0..<Int(n)]
                read += Int(n)
                got = true
                continue
            }
            let error = SSL_get_error(ssl, n)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE {
                if got || Date() >= deadline { break }
                wait(Int16(POLLIN), until: deadline)
                continue
            }
            ERR_clear_error()
            closed = true
        }
        return got
    }

    /// The next whole frame in the inbox, if any.
    func nextFrame() -> H2Frame? {
        guard inbox.count >= 9 else { return nil }
        let length = Int(inbox[0]) << 16 | Int(inbox[1]) << 8 | Int(inbox[2])
        guard inbox.count >= 9 + length else { return nil }
        let stream =
            (UInt32(inbox[5]) << 24 | UInt32(inbox[6]) << 16 | UInt32(inbox[7]) << 8 | UInt32(inbox[8])) & 0x7fff_ffff
        let frame = H2Frame(type: inbox[3], flags: inbox[4], stream: stream, payload: Array(inbox[9..<9 + length]))
        inbox.removeFirst(9 + length)
        return frame
    }

    /// Reads frames until `stop` returns true for one (returned), the server closes, or `timeout` passes (nil).
    func frame(timeout: TimeInterval = 10, where stop: (H2Frame) -> Bool) -> H2Frame? {
        let deadline = Date() + timeout
        while true {
            while let frame = nextFrame() {
                if stop(frame) { return frame }
            }
            if closed || Date() >= deadline { return nil }
            pump(timeout: deadline.timeIntervalSinceNow)
        }
    }

    /// Reads and discards until the server closes the connection; returns every frame seen, or nil after `timeout`.
    func framesUntilClosed(timeout: TimeInterval) -> [H2Frame]? {
        var frames: [H2Frame] = []
        let deadline = Date() + timeout
        while true {
            while let frame = nextFrame() { frames.append(frame) }
            if closed { return frames }
            if Date() >= deadline { return nil }
            pump(timeout: deadline.timeIntervalSinceNow)
        }
    }

    /// A push request's header fields.
    static func push(token: String, authorization: String?, topic: String = "com.example.app") -> [(String, String)] {
        var fields: [(String, String)] = [
            (":method", "POST"), (":scheme", "https"), (":authority", "127.0.0.1"),
            (":path", "/3/device/\(token)"),
        ]
        if let authorization { fields.append(("authorization", authorization)) }
        fields += [("apns-topic", topic), ("apns-push-type", "alert")]
        return fields
    }

    static let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    /// HEADERS (+ DATA with END_STREAM) for a complete push on `stream`, its fields indexed when `index`.
    func pushFrames(stream: UInt32, token: String, authorization: String?, index: Bool = true) -> [UInt8] {
        let block = encoder.block(Self.push(token: token, authorization: authorization), index: index)
        return H2Frame.headers(stream: stream, block: block, endStream: false)
            + H2Frame.data(stream: stream, Self.body, endStream: true).bytes
    }
}
