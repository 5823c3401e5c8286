internal import CMicroHTTPD
import Foundation

/// libmicrohttpd's callbacks, on its daemon thread. A request goes: the target callback (HTTPServer+Head) → first
/// call (headers: judge the head, decide the limit, refuse a declared oversize body) → calls with body bytes (kept up
/// to the limit, dropped past it) → a call with none left (a 413 for a body dropped; else suspend the connection, run
/// the handler as a task) → after resume, a call that queues the handler's response.
extension HTTPServer {
    static let accessCallback: MHD_AccessHandlerCallback = {
        cls, connection, url, method, version, upload, uploadSize, context in
        guard let cls, let connection, let context, let uploadSize, let existing = context.pointee else { return .NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        let request = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
        if !request.begun {
            server.state.withLock { $0.active += 1 }
            if let refused = server.begin(request, connection, url: url, method: method, version: version) {
                return refused
            }
            if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
                let length = Int(String(cString: declared))
            {
                if length > request.limit {
                    request.rejected = true
                    return server.queue(server.options.tooLarge, on: connection, close: true)
                }
                // Within the limit: one allocation for the whole body instead of doubling (and copying) up to it.
                request.body.reserveCapacity(length)
            }
            return .YES
        }
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if request.rejected { return .YES }
            if request.dropped > 0 || request.body.count + count > request.limit {
                return server.drop(count, of: request)
            }
            if let upload { request.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: count)) }
            return .YES
        }
        if request.rejected { return .YES }
        if request.dropped > 0 {
            request.rejected = true
            return server.queue(server.options.tooLarge, on: connection, close: true)
        }
        if let response = request.response.withLock({ $0 }) {
            return server.queue(response, on: connection, close: false)
        }
        if request.handed { return .YES }
        return server.hand(request, on: connection)
    }

    static let completedCallback: MHD_RequestCompletedCallback = { cls, _, context, _ in
        guard let cls, let context, let existing = context.pointee else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        context.pointee = nil
        let request = Unmanaged<RequestState>.fromOpaque(existing).takeRetainedValue()
        if request.begun { server.state.withLock { $0.active -= 1 } }
    }
}
