internal import CMicroHTTPD
import Foundation
import Threads

/// What happens between a request's head and its handler: the probe reserve past `maxConnections`, the head check
/// (authentication before any body byte is read), and the budget of body bytes held in memory.
extension HTTPServer {
    /// The connection's identity in the connection watch.
    static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }

    /// The head is in: past `maxConnections` only the probe paths are served; a request announcing a body is
    /// checked (suspended meanwhile) before any of it is read.
    func admit(_ request: RequestState, on connection: OpaquePointer) -> MHD_Result {
        let key = Self.key(connection)
        watch.enter(key, .held, now: MonotonicClock.nanoseconds())
        if watch.count > options.maxConnections, !options.probePaths.contains(request.path) {
            return refuse(options.busy, "too_many_connections", request, on: connection)
        }
        guard Self.announcesBody(connection) else { return .YES }
        guard let headCheck else { return readBody(request, on: connection) }
        let head = HTTPHead(
            method: request.method, path: request.path, headers: Self.headers(connection),
            remoteAddress: Self.remoteAddress(connection))
        let suspended = state.withLock { state -> Bool in
            guard !state.closing else { return false }
            MHD_suspend_connection(connection)
            request.connection = connection
            request.checking = true
            state.suspended[ObjectIdentifier(request)] = request
            return true
        }
        guard suspended else { return refuse(options.unavailable, "shutting_down", request, on: connection) }
        Task {
            let refusal = await headCheck(head)
            self.resume(request, answer: refusal)
        }
        return .YES
    }

    /// A body follows the head: a positive Content-Length, or any Transfer-Encoding.
    private static func announcesBody(_ connection: OpaquePointer) -> Bool {
        if MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding") != nil { return true }
        guard let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else {
            return false
        }
        return Int(String(cString: declared)).map { $0 > 0 } ?? true
    }

    /// Hands the head check's answer over and resumes the connection, unless the stop's deadline answered it.
    private func resume(_ request: RequestState, answer: HTTPResponse?) {
        daemon.withLock { daemon in
            guard daemon != nil,
                state.withLock({ $0.suspended.removeValue(forKey: ObjectIdentifier(request)) }) != nil,
                let connection = request.connection
            else { return }
            request.response.withLock { $0 = answer }
            MHD_resume_connection(connection)
        }
    }

    /// The first call after the head check resumed the connection: its refusal is answered (the body never read,
    /// the connection closed), or the body is read now.
    func afterCheck(_ request: RequestState, on connection: OpaquePointer) -> MHD_Result {
        request.checking = false
        let refusal = request.response.withLock { answer in
            defer { answer = nil }
            return answer
        }
        if let refusal {
            request.rejected = true
            return queue(refusal, on: connection, close: true)
        }
        return readBody(request, on: connection)
    }

    /// On to the body, unless its declared length would take the bytes in flight over the budget (compared, never
    /// set aside: memory grows only with the bytes that arrive).
    private func readBody(_ request: RequestState, on connection: OpaquePointer) -> MHD_Result {
        if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
            let length = Int(String(cString: declared)),
            bodyBytes.withLock({ $0 }) + length > options.maxBodyBytesInFlight
        {
            return refuse(options.bodiesBusy, "too_many_bodies_in_flight", request, on: connection)
        }
        watch.enter(Self.key(connection), .body, now: MonotonicClock.nanoseconds())
        return .YES
    }

    /// Counts `count` more received body bytes against `maxBodyBytesInFlight`; false, nothing counted, when they
    /// would take it over.
    func hold(_ count: Int, for request: RequestState) -> Bool {
        let budget = options.maxBodyBytesInFlight
        let taken = bodyBytes.withLock { held in
            guard held + count <= budget else { return false }
            held += count
            return true
        }
        if taken { request.held += count }
        return taken
    }

    /// Gives the request's body bytes back to the budget (it completed, or its body was refused).
    func release(_ request: RequestState) {
        guard request.held > 0 else { return }
        let held = request.held
        request.held = 0
        bodyBytes.withLock { $0 -= held }
    }
}
