import APNs
internal import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One reusable libcurl easy handle and everything it points at while a request is in flight:
/// URL, header list, body, error buffer, the collected response and the caller's completion.
///
/// Used only by its connection's event-loop thread. The header list and the body live in buffers owned
/// here and reused from request to request, so a request costs no allocation once the handle is warm
/// (CURLOPT_POSTFIELDS and CURLOPT_HTTPHEADER do not copy: they must stay valid until the transfer is done).
final class Transfer {
    let easy: UnsafeMutableRawPointer
    var completion: TransportCompletion?
    /// Monotonic nanoseconds at which libcurl started writing this attempt (0: not yet).
    var writtenAt: UInt64 = 0
    var attempts = 0
    /// Position in the loop's list of transfers in the multi handle; -1 when not in it.
    var activeIndex = -1
    /// Whether libcurl has started sending this attempt (CURLOPT_PREREQFUNCTION).
    var onWire = true
    /// Whether any attempt of this request started on the wire: APNs may have seen it.
    var everSent = false
    /// The request's `APNsRequest.group`, for `withdraw`.
    var group: Int64?
    /// `ConnectionSockets.generation` when libcurl last started sending this attempt: the connection it went on.
    var connectionGeneration = 0
    unowned let owner: any TransferEvents
    var status = 0
    var apnsID: String?
    var responseBody: [UInt8] = []

    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var nodes: UnsafeMutablePointer<curl_slist>
    private var nodeCapacity: Int
    private var headerBytes: UnsafeMutablePointer<CChar>
    private var headerCapacity: Int
    private var body: UnsafeMutableRawPointer
    private var bodyCapacity: Int
    private var url: UnsafeMutablePointer<CChar>
    private var urlCapacity: Int
    /// The header array whose bytes open the arena (empty: none), and how many bytes they take.
    private var renderedHeaders: [(name: String, value: String)] = []
    private var renderedBytes = 0

    /// The largest response body kept (APNs error bodies are tiny); more is read and dropped.
    static let maximumResponseBody = 64 * 1024

    /// Headers libcurl would add on its own that APNs does not want: removed by naming them with no value.
    nonisolated(unsafe) private static let removedHeaders: [UnsafeMutablePointer<CChar>] =
        ["Accept:", "Content-Type:"].map { (name: String) in strdup(name)! }

    /// A new easy handle with every option that does not change between requests.
    init?(configuration: ConnectionConfiguration, owner: any TransferEvents) {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        self.owner = owner
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        nodeCapacity = 16
        nodes = .allocate(capacity: nodeCapacity)
        headerCapacity = 2048
        headerBytes = .allocate(capacity: headerCapacity)
        bodyCapacity = 4096
        body = .allocate(byteCount: bodyCapacity, alignment: 1)
        urlCapacity = 512
        url = .allocate(capacity: urlCapacity)

        let me = Unmanaged.passUnretained(self).toOpaque()
        var ok = true
        func set(_ option: CURLoption, _ value: Int) {
            ok = ok && apnsd_easy_setopt_long(easy, option, value) == CURLE_OK
        }
        func set(_ option: CURLoption, _ value: UnsafeRawPointer?) {
            ok = ok && apnsd_easy_setopt_ptr(easy, option, value) == CURLE_OK
        }
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        set(CURLOPT_PIPEWAIT, 1)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_TCP_KEEPALIVE, 1)
        set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds)
        set(CURLOPT_TIMEOUT_MS, configuration.requestTimeout.milliseconds)
        set(CURLOPT_POST, 1)
        set(CURLOPT_PRIVATE, me)
        set(CURLOPT_ERRORBUFFER, UnsafeRawPointer(errorBuffer))
        set(CURLOPT_WRITEDATA, me)
        set(CURLOPT_HEADERDATA, me)
        "https".withCString { set(CURLOPT_PROTOCOLS_STR, $0) }  // libcurl copies strings
        if let caFile = configuration.caFile { caFile.withCString { set(CURLOPT_CAINFO, $0) } }
        if let identity = configuration.clientIdentity {
            // Blobs are copied by libcurl (CURL_BLOB_COPY), so the PEM bytes need not outlive this call.
            func setBlob(_ option: CURLoption, _ bytes: [UInt8]) {
                bytes.withUnsafeBytes { buffer in
                    var blob = curl_blob(
                        data: UnsafeMutableRawPointer(mutating: buffer.baseAddress), len: buffer.count,
                        flags: UInt32(CURL_BLOB_COPY))
                    withUnsafePointer(to: &blob) { set(option, UnsafeRawPointer($0)) }
                }
            }
            setBlob(CURLOPT_SSLCERT_BLOB, identity.certificateChainPEM)
            "PEM".withCString { set(CURLOPT_SSLCERTTYPE, $0) }
            setBlob(CURLOPT_SSLKEY_BLOB, identity.privateKeyPEM)
            "PEM".withCString { set(CURLOPT_SSLKEYTYPE, $0) }
        }
        switch configuration.proxy {
        case .none: "".withCString { set(CURLOPT_PROXY, $0) }  // "" also turns off libcurl's proxy variables
        case .environment: break
        case .url(let url): url.withCString { set(CURLOPT_PROXY, $0) }
        }
        ok = ok && apnsd_easy_setopt_write_cb(easy, CURLOPT_WRITEFUNCTION, Self.writeCallback) == CURLE_OK
        ok = ok && apnsd_easy_setopt_write_cb(easy, CURLOPT_HEADERFUNCTION, Self.headerCallback) == CURLE_OK
        // The connection outlives the transfer that opened it: its socket callbacks report to the loop.
        let loop = Unmanaged.passUnretained(owner as AnyObject).toOpaque()
        set(CURLOPT_SOCKOPTDATA, loop)
        set(CURLOPT_CLOSESOCKETDATA, loop)
        ok = ok && apnsd_easy_setopt_sockopt_cb(easy, CURLOPT_SOCKOPTFUNCTION, Self.socketOpenedCallback) == CURLE_OK
        ok =
            ok
            && apnsd_easy_setopt_closesocket_cb(easy, CURLOPT_CLOSESOCKETFUNCTION, Self.socketClosingCallback)
                == CURLE_OK
        set(CURLOPT_PREREQDATA, me)
        ok = ok && apnsd_easy_setopt_prereq_cb(easy, CURLOPT_PREREQFUNCTION, Self.prereqCallback) == CURLE_OK
        if !ok {
            release()
            return nil
        }
    }

    deinit { release() }

    private var released = false
    private func release() {
        guard !released else { return }
        released = true
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
        nodes.deallocate()
        headerBytes.deallocate()
        body.deallocate()
        url.deallocate()
    }

    /// Points the handle at `request`: URL, headers, body. Fails (nothing sent) when a header holds CR, LF or NUL.
    func configure(_ request: APNsRequest, baseURL: [UInt8]) -> TransportError? {
        resetResponse()
        attempts = 0
        everSent = false
        writtenAt = 0
        group = request.group

        // URL: libcurl copies it.
        let urlLength = baseURL.count + request.path.utf8.count + 1
        if urlLength > urlCapacity {
            url.deallocate()
            urlCapacity = urlLength * 2
            url = .allocate(capacity: urlCapacity)
        }
        var at = 0
        baseURL.withUnsafeBytes { at = Self.append($0, to: UnsafeMutableRawPointer(url), at: 0) }
        var path = request.path
        let pathOK = path.withUTF8 { bytes in
            // No control characters or spaces: libcurl would refuse or mangle them.
            !bytes.contains { $0 <= 0x20 || $0 == 0x7F }
        }
        if !pathOK { return Self.invalid("request path contains a control character or space") }
        path.withUTF8 { at = Self.append(UnsafeRawBufferPointer($0), to: UnsafeMutableRawPointer(url), at: at) }
        url[at] = 0

        // Header list: our own curl_slist nodes over our own bytes, "name: value\0" each; `authorization` first.
        // Node 0 is `authorization`'s, nodes 1...n the headers', then the removed ones. The headers' bytes open the
        // arena and are rendered (and checked) once per array: a campaign's requests share one array.
        let headerCount = request.headers.count
        let count = 1 + headerCount + Self.removedHeaders.count
        if count > nodeCapacity {
            nodes.deallocate()
            nodeCapacity = count * 2
            nodes = .allocate(capacity: nodeCapacity)
            renderedHeaders = []
        }
        let authorizationBytes = request.authorization.map { HeaderName.authorization.utf8.count + $0.utf8.count + 3 }
        if !isRendered(request.headers)
            || renderedBytes + (authorizationBytes ?? 0) > headerCapacity
        {
            renderedHeaders = []
            var bytes = authorizationBytes ?? 0
            for header in request.headers { bytes += header.name.utf8.count + header.value.utf8.count + 3 }
            if bytes > headerCapacity {
                headerBytes.deallocate()
                headerCapacity = bytes * 2
                headerBytes = .allocate(capacity: headerCapacity)
            }
            var at = 0
            for (index, header) in request.headers.enumerated() {
                let start = at
                if let error = render(header, at: &at) { return error }
                nodes[1 + index] = curl_slist(data: headerBytes + start, next: nil)
            }
            renderedHeaders = request.headers
            renderedBytes = at
        }
        var first = 1
        if let authorization = request.authorization {
            var at = renderedBytes
            if let error = render((HeaderName.authorization, authorization), at: &at) { return error }
            nodes[0] = curl_slist(data: headerBytes + renderedBytes, next: nil)
            first = 0
        }
        for (index, removed) in Self.removedHeaders.enumerated() {
            nodes[1 + headerCount + index] = curl_slist(data: removed, next: nil)
        }
        for i in first..<(count - 1) { nodes[i].next = nodes + i + 1 }
        nodes[count - 1].next = nil

        // Body: POSTFIELDS does not copy; our buffer stays until the next configure.
        let bodyCount = request.body.count
        if bodyCount > bodyCapacity {
            body.deallocate()
            bodyCapacity = bodyCount * 2
            body = .allocate(byteCount: bodyCapacity, alignment: 1)
        }
        request.body.withUnsafeBytes { source in
            if let base = source.baseAddress, bodyCount > 0 { body.copyMemory(from: base, byteCount: bodyCount) }
        }

        var ok = apnsd_easy_setopt_ptr(easy, CURLOPT_URL, url) == CURLE_OK
        ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, nodes + first) == CURLE_OK
        ok = ok && apnsd_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bodyCount)) == CURLE_OK
        ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, body) == CURLE_OK
        return ok ? nil : Self.invalid("libcurl refused the request options")
    }

    /// Whether `headers` is the array whose bytes open the arena: the same storage, which `renderedHeaders` keeps
    /// alive (so no other array can have its address) and unchanged (a change would copy it).
    private func isRendered(_ headers: [(name: String, value: String)]) -> Bool {
        guard !headers.isEmpty, headers.count == renderedHeaders.count else { return false }
        let mine = renderedHeaders.withUnsafeBufferPointer { $0.baseAddress }
        return headers.withUnsafeBufferPointer { $0.baseAddress == mine }
    }

    /// Writes "name: value\0" at `at` in the arena (its room already counted) and moves `at` past it; an error,
    /// and nothing sent, when the name is not a token or the value holds CR, LF or NUL.
    private func render(_ header: (name: String, value: String), at: inout Int) -> TransportError? {
        var name = header.name
        var value = header.value
        let nameOK = name.withUTF8 { bytes in
            !bytes.isEmpty && !bytes.contains { $0 <= 0x20 || $0 == UInt8(ascii: ":") || $0 >= 0x7F }
        }
        if !nameOK { return Self.invalid("header name '\(header.name)' is not a token") }
        // The value is never printed: it may be the bearer token.
        let valueOK = value.withUTF8 { bytes in !bytes.contains { $0 == 0 || $0 == 0x0A || $0 == 0x0D } }
        if !valueOK { return Self.invalid("value of header '\(header.name)' contains CR, LF or NUL") }
        let arena = UnsafeMutableRawPointer(headerBytes)
        name.withUTF8 { at = Self.append(UnsafeRawBufferPointer($0), to: arena, at: at) }
        arena.storeBytes(of: UInt8(ascii: ":"), toByteOffset: at, as: UInt8.self)
        arena.storeBytes(of: UInt8(ascii: " "), toByteOffset: at + 1, as: UInt8.self)
        at += 2
        value.withUTF8 { at = Self.append(UnsafeRawBufferPointer($0), to: arena, at: at) }
        arena.storeBytes(of: 0, toByteOffset: at, as: UInt8.self)
        at += 1
        return nil
    }

    /// Clears what the last attempt collected, before (re)sending.
    func resetResponse() {
        status = 0
        apnsID = nil
        if !responseBody.isEmpty { responseBody = [] }
        errorBuffer[0] = 0
    }

    /// The CURLOPT_ERRORBUFFER text of the last attempt.
    var errorDetail: String {
        errorBuffer[Int(CURL_ERROR_SIZE) - 1] = 0
        var text = String(cString: errorBuffer)
        while text.last == "\n" { text.removeLast() }
        return text
    }

    /// The response status of the finished attempt.
    func responseCode() -> Int {
        var code = 0
        _ = apnsd_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The transfer behind an easy handle (its CURLOPT_PRIVATE).
    static func from(easy: UnsafeMutableRawPointer) -> Transfer {
        var pointer: UnsafeMutableRawPointer?
        _ = apnsd_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &pointer)
        return Unmanaged<Transfer>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// Copies `bytes` to `destination + offset`; returns the offset after them.
    private static func append(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer, at offset: Int)
        -> Int
    {
        if let base = bytes.baseAddress, bytes.count > 0 {
            (destination + offset).copyMemory(from: base, byteCount: bytes.count)
        }
        return offset + bytes.count
    }

    private static func invalid(_ message: String) -> TransportError {
        TransportError(
            kind: .invalidRequest, curlCode: 0, message: message, isConnectionFatal: false, isRetryable: false)
    }
}
