internal import CMicroHTTPD
import Foundation
import Threads

/// libmicrohttpd's callbacks, on its daemon thread. A request goes: the target callback (HTTPServer+Head) → first
/// call (headers: judge the head, decide the limit, refuse a declared oversize body, admit it: the probe reserve, the
/// head check on a suspended connection and, after resume, a call with its answer) → calls with body bytes (kept up to
/// the limit and the in-flight budget, dropped past them) → a call with none left (a 413 or 503 for a body dropped;
/// else suspend the connection, run the handler as a task) → after resume, a call that queues the handler's response.
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
                let length = Int(String(cString: declared)), length > request.limit
            {
                return server.refuse(server.options.tooLarge, "body_too_large", request, on: connection)
            }
            // Nothing is reserved from a declared length: the body grows with the bytes that actually arrive.
            return server.admit(request, on: connection)
        }
        if request.checking { return server.afterCheck(request, on: connection) }
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if request.rejected || request.overBudget { return .YES }
            if request.dropped > 0 || request.body.count + count > request.limit {
                server.release(request)
                return server.drop(count, of: request, on: connection)
            }
            guard server.hold(count, for: request) else {
                // libmicrohttpd answers nothing queued mid-body: the rest is read and dropped, then answered 503.
                request.overBudget = true
                request.body = []
                server.release(request)
                return .YES
            }
            if let upload { request.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: count)) }
            return .YES
        }
        if request.rejected { return .YES }
        if request.dropped > 0 {
            return server.refuse(server.options.tooLarge, "body_too_large", request, on: connection)
        }
        if request.overBudget {
            return server.refuse(server.options.bodiesBusy, "too_many_bodies_in_flight", request, on: connection)
        }
        if let response = request.response.withLock({ $0 }) {
            server.watch.enter(key(connection), .held, now: MonotonicClock.nanoseconds())
            return server.queue(response, on: connection, close: false)
        }
        if request.handed { return .YES }
        return server.hand(request, on: connection)
    }

    static let completedCallback: MHD_RequestCompletedCallback = { cls, connection, context, _ in
        guard let cls, let context, let existing = context.pointee else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        context.pointee = nil
        let request = Unmanaged<RequestState>.fromOpaque(existing).takeRetainedValue()
        server.release(request)
        // A keep-alive connection's next head is timed from here.
        if let connection { server.watch.enter(key(connection), .head, now: MonotonicClock.nanoseconds()) }
        if request.begun { server.state.withLock { $0.active -= 1 } }
    }
}
