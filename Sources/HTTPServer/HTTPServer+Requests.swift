internal import CMicroHTTPD
import Foundation
import Threads

/// Running a handler on a suspended connection, and queueing responses.
extension HTTPServer {
    /// Suspends the connection and runs the handler as a task; its answer resumes the connection.
    func hand(_ request: RequestState, on connection: OpaquePointer) -> MHD_Result {
        let incoming = HTTPRequest(
            method: request.method, path: request.path, query: request.query,
            headers: request.headers, body: request.body,
            remoteAddress: Self.remoteAddress(connection))
        request.body = []
        request.handed = true
        let suspended = state.withLock { state -> Bool in
            guard !state.closing else { return false }
            MHD_suspend_connection(connection)
            request.connection = connection
            state.suspended[ObjectIdentifier(request)] = request
            return true
        }
        guard suspended else { return refuse(options.unavailable, "shutting_down", request, on: connection) }
        let handler = handler
        let task = Task {
            let response = await handler(incoming)
            self.finish(request, with: response)
        }
        // A client that leaves meanwhile is seen by the watch, which closes the connection once the handler answers
        // and cancels a read's handler (a long poll ends early); a request that writes is let finish whole.
        var cancel: (@Sendable () -> Void)?
        if request.method == "GET" || request.method == "HEAD" { cancel = { task.cancel() } }
        watch.enter(Self.key(connection), .handling, now: MonotonicClock.nanoseconds(), cancel: cancel)
        return .YES
    }

    /// Hands the response over and resumes the connection, unless the stop's deadline answered it already.
    private func finish(_ request: RequestState, with response: HTTPResponse) {
        daemon.withLock { daemon in
            guard daemon != nil,
                state.withLock({ $0.suspended.removeValue(forKey: ObjectIdentifier(request)) }) != nil,
                let connection = request.connection
            else { return }
            request.response.withLock { $0 = response }
            MHD_resume_connection(connection)
        }
    }

    /// Queues the server's own answer (`response`, for `reason`) instead of running the handler, reports it to
    /// `answeredByServer`, and closes the connection after it; `onSocket` writes it at once (mid-body).
    func refuse(
        _ response: HTTPResponse, _ reason: String, _ request: RequestState, on connection: OpaquePointer,
        onSocket: Bool = false
    ) -> MHD_Result {
        request.rejected = true
        options.answeredByServer?(
            ServerAnswer(
                method: request.method, path: request.path.isEmpty ? nil : request.path,
                status: response.status, reason: reason))
        return onSocket ? answerOnSocket(response, connection) : queue(response, on: connection, close: true)
    }

    /// Queues `response`; `close` (or a stopping server) ends the connection after it.
    func queue(_ response: HTTPResponse, on connection: OpaquePointer, close: Bool) -> MHD_Result {
        let created = response.body.withUnsafeBytes {
            MHD_create_response_from_buffer(
                $0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for field in response.headers {
            _ = MHD_add_response_header(created, field.name, field.value)
        }
        if close || state.withLock({ $0.stopping }) {
            _ = MHD_add_response_header(created, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    /// Writes `response` straight to the connection's socket and returns `.NO`, which has libmicrohttpd close the
    /// connection: for an answer due in the middle of a body, where libmicrohttpd 0.9.75 can queue none until the
    /// body has ended. Over TLS the bytes would have to go through GnuTLS's session, so the connection is only closed.
    func answerOnSocket(_ response: HTTPResponse, _ connection: OpaquePointer) -> MHD_Result {
        let socket = apnsd_mhd_connection_fd(connection)
        guard !isTLS, socket >= 0 else { return .NO }
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\n"
        for field in response.headers where field.name.lowercased() != "content-length" {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        // A small answer into a socket buffer that holds nothing of ours yet: one send takes it whole.
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return .NO
    }

    private final class Pairs {
        var items: [(name: String, value: String?)] = []
    }

    private static func pairs(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String?)] {
        let collected = Pairs()
        _ = withExtendedLifetime(collected) {
            MHD_get_connection_values(
                connection, kind,
                { cls, _, key, value in
                    guard let cls, let key else { return .YES }
                    let pairs = Unmanaged<Pairs>.fromOpaque(cls).takeUnretainedValue()
                    pairs.items.append((name: String(cString: key), value: value.map { String(cString: $0) }))
                    return .YES
                }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.items
    }

    static func headers(_ connection: OpaquePointer) -> HTTPHeaders {
        HTTPHeaders(pairs(connection, .HEADER_KIND).map { (name: $0.name, value: $0.value ?? "") })
    }

    static func remoteAddress(_ connection: OpaquePointer) -> String {
        guard let address = apnsd_mhd_client_address(connection) else { return "" }
        let length =
            address.pointee.sa_family == sa_family_t(AF_INET6)
            ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return ""
        }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
