internal import CMicroHTTPD
import Foundation

/// Judging a request's head before its handler runs (`RequestHead`), from the target as sent.
extension HTTPServer {
    /// libmicrohttpd's URI-log callback: called once the request line is read, before libmicrohttpd decodes the
    /// target in place. Keeps the target as sent in the request's state (its per-request pointer from then on), and
    /// ends libmicrohttpd's copy of the query at its `?`: the query is parsed here instead, as libmicrohttpd would
    /// parse every item into its fixed per-connection memory, where a few hundred exhaust it and the request is
    /// left unanswered.
    private static let targetCallback:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
            _, uri, _ in
            var target: [UInt8] = []
            if let uri {
                let length = strlen(uri)
                target = Array(UnsafeRawBufferPointer(start: uri, count: length))
                if let question = memchr(uri, Int32(UInt8(ascii: "?")), length) {
                    // libmicrohttpd's own read buffer (char *), handed over as const: a NUL after the `?` leaves
                    // it an empty query to parse.
                    question.advanced(by: 1).storeBytes(of: 0, as: UInt8.self)
                }
            }
            return Unmanaged.passRetained(RequestState(target: target)).toOpaque()
        }

    /// The daemon options the head checks need: the target callback, and memory for heads well past the limits,
    /// so that those are refused here (in the configured format) rather than by libmicrohttpd's own pages.
    static func headOptions(_ server: UnsafeMutableRawPointer, _ limits: RequestLimits) -> [MHD_OptionItem] {
        [
            MHD_OptionItem(
                option: .URI_LOG_CALLBACK, value: unsafeBitCast(targetCallback, to: Int.self), ptr_value: server),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: limits.connectionMemory, ptr_value: nil),
        ]
    }

    /// The first access call, the head whole: judges it. A refusal is queued (closing the connection) and its
    /// result returned; otherwise the request's method, path, query, headers and body limit are set and nil is
    /// returned.
    func begin(
        _ request: RequestState, _ connection: OpaquePointer, url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?
    ) -> MHD_Result? {
        request.begun = true
        request.method = method.map { String(cString: $0) } ?? ""
        request.headers = Self.headers(connection)
        // The target runs from the url pointer to the space before the version, in the same buffer: a C string
        // shorter than that stopped at a raw NUL.
        var complete = true
        if let url, let version {
            complete = UInt(bitPattern: version) &- UInt(bitPattern: url) &- 1 == UInt(request.target.count)
        }
        let head = RequestHead(target: request.target, headers: request.headers, targetComplete: complete)
        switch head.judge(options.limits) {
        case .failure(let refusal):
            return refuse(options.refused(refusal), refusal.code, request, on: connection)
        case .success(let accepted):
            request.path = accepted.path
            request.query = accepted.query
            request.limit = max(0, bodyLimit(request.method, accepted.path))
            return nil
        }
    }

    /// Body bytes past the route's limit, which only a chunked body can bring (a declared length over it is
    /// refused from the head): dropped, and the 413 queued once the body has ended; a body running on past
    /// `chunkedOverrun` is answered 413 on the socket at once and its connection closed.
    func drop(_ count: Int, of request: RequestState, on connection: OpaquePointer) -> MHD_Result {
        request.body = []
        request.dropped += count
        guard request.dropped > options.limits.chunkedOverrun else { return .YES }
        return refuse(options.tooLarge, "body_too_large", request, on: connection, onSocket: true)
    }
}
