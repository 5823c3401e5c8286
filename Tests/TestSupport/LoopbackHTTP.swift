import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 client for a server on 127.0.0.1, in process: one request per connection, written and read by a
/// thread of its own. The in-process API tests send thousands of requests, many at once; starting a curl process for
/// each cost seconds and raced inside Foundation's process launching.
public enum LoopbackHTTP {
    /// Bodies above this go out after the server's `100 Continue`, as curl sends them: a server refusing the request
    /// (413) answers before reading the body.
    static let expectContinueAbove = 1 << 20

    /// `method target` to `127.0.0.1:port` with `headers` (`"Name: value"`) and `body`; nil when no whole answer came
    /// within `timeout`. Never blocks a thread of the cooperative pool.
    public static func request(
        port: Int, _ method: String, _ target: String, headers: [String], body: Data?,
        timeout: TimeInterval = 30
    ) async -> HTTPClient.Response? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    returning: exchange(
                        port: port, method: method, target: target, headers: headers, body: body, timeout: timeout))
            }
            thread.start()
        }
    }

    private static func exchange(
        port: Int, method: String, target: String, headers: [String], body: Data?, timeout: TimeInterval
    ) -> HTTPClient.Response? {
        guard let connection = Connection(port: port, timeout: timeout) else { return nil }
        defer { connection.close() }
        let sendsLate = (body?.count ?? 0) > expectContinueAbove
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: */*\r\n"
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        if sendsLate { head += "Expect: 100-continue\r\n" }
        head += "\r\n"
        guard connection.write(Data(head.utf8)) else { return nil }
        var reader = ResponseReader(connection: connection, method: method)
        if let body {
            // A refused send (the server answered and closed) still leaves its answer to read.
            if sendsLate, connection.readable(within: 1), let early = reader.next(), early.status >= 200 {
                return early
            }
            _ = connection.write(body)
        }
        while let response = reader.next() {
            if response.status >= 200 { return response }
        }
        return nil
    }

    /// A blocking TCP connection with send and receive timeouts.
    private struct Connection {
        let socket: Int32

        init?(port: Int, timeout: TimeInterval) {
            guard let socket = try? LoopbackSocket.connect(port: port) else { return nil }
            self.socket = socket
            var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
            _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }

        func write(_ data: Data) -> Bool {
            data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let sent = send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    if sent < 0 && errno == EINTR { continue }
                    guard sent > 0 else { return false }
                    offset += sent
                }
                return true
            }
        }

        /// Up to 64 KiB; empty at the end of the stream, nil on an error or a timeout.
        func read() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { return nil }
                return Array(buffer[..<count])
            }
        }

        func readable(within seconds: Int32) -> Bool {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            return poll(&descriptor, 1, seconds * 1000) > 0
        }

        func close() { Glibc.close(socket) }
    }

    /// Responses in order off one connection: head, then a body delimited by Content-Length, chunks or the close.
    private struct ResponseReader {
        let connection: Connection
        let method: String
        var buffered: [UInt8] = []
        var ended = false

        init(connection: Connection, method: String) {
            self.connection = connection
            self.method = method
        }

        mutating func next() -> HTTPClient.Response? {
            guard let end = until([13, 10, 13, 10]) else { return nil }
            let head = String(decoding: take(end + 4), as: UTF8.self)
            let lines = head.split(separator: "\r\n")
            guard let statusLine = lines.first,
                let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
            else { return nil }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            if status < 200 { return HTTPClient.Response(status: status, headers: headers, body: "") }
            var body: [UInt8]
            if method == "HEAD" || status == 204 || status == 304 {
                body = []
            } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                guard let chunks = chunkedBody() else { return nil }
                body = chunks
            } else if let length = headers["content-length"].flatMap(Int.init) {
                guard fill(length) else { return nil }
                body = take(length)
            } else {
                while !ended, more() {}
                guard ended else { return nil }
                body = take(buffered.count)
            }
            return HTTPClient.Response(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
        }

        private mutating func chunkedBody() -> [UInt8]? {
            var body: [UInt8] = []
            while true {
                guard let lineEnd = until([13, 10]) else { return nil }
                let line = String(decoding: take(lineEnd + 2).dropLast(2), as: UTF8.self)
                guard let size = Int(line.split(separator: ";").first ?? "", radix: 16) else { return nil }
                if size == 0 {
                    while let trailerEnd = until([13, 10]) {
                        if take(trailerEnd + 2).count == 2 { return body }
                    }
                    return nil
                }
                guard fill(size + 2) else { return nil }
                body += take(size + 2).dropLast(2)
            }
        }

        /// The offset of `marker` in what is buffered, reading until it arrives; nil if the stream ends first.
        private mutating func until(_ marker: [UInt8]) -> Int? {
            var from = 0
            while true {
                if buffered.count >= marker.count {
                    for start in from...(buffered.count - marker.count)
                    where buffered[start..<start + marker.count].elementsEqual(marker) {
                        return start
                    }
                    from = buffered.count - marker.count + 1
                }
                guard more() else { return nil }
            }
        }

        private mutating func fill(_ count: Int) -> Bool {
            while buffered.count < count {
                guard more() else { return false }
            }
            return true
        }

        private mutating func more() -> Bool {
            guard !ended, let bytes = connection.read() else { return false }
            if bytes.isEmpty {
                ended = true
                return false
            }
            buffered += bytes
            return true
        }

        private mutating func take(_ count: Int) -> [UInt8] {
            let taken = Array(buffered[..<count])
            buffered.removeFirst(count)
            return taken
        }
    }
}
