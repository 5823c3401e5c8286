internal import CCurl
import Threads

/// One HTTP(S) request on libcurl's easy interface (the webhook's POST, APNs channel management's POST, GET and
/// DELETE): a handle per call, performed on a thread of its own so the blocking call never occupies Swift's
/// cooperative pool. TLS peer and host verification are always on; redirects are not followed; proxy variables are
/// ignored unless `proxy` says otherwise.
public struct HTTPExchange: Sendable {
    /// The whole request's limit, connection included.
    public var timeout: Duration
    public var connectTimeout: Duration
    /// An extra PEM CA to trust; the system's otherwise.
    public var caFile: String?
    /// A TLS client certificate to present (certificate-based APNs authentication); none otherwise.
    public var clientIdentity: ClientIdentity?
    /// How to reach the server: directly by default (the webhook's); APNs channel management follows `apns.proxy`.
    public var proxy: Proxy = .none
    /// HTTP/2 over TLS only (APNs answers nothing else); otherwise libcurl's default (HTTP/1.1, or h2 if offered).
    public var requireHTTP2: Bool

    /// Response body bytes kept (the rest is read and dropped): 4 KiB for a webhook's answer; a list of 10,000
    /// channel ids needs more.
    public var maximumResponseBody: Int
    /// Response header bytes kept, all lines together (the rest is dropped).
    public static let maximumResponseHeaders = 8192

    public init(
        timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10), caFile: String? = nil,
        clientIdentity: ClientIdentity? = nil, requireHTTP2: Bool = false, maximumResponseBody: Int = 4096
    ) {
        self.maximumResponseBody = maximumResponseBody
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.caFile = caFile
        self.clientIdentity = clientIdentity
        self.requireHTTP2 = requireHTTP2
    }

    /// The request methods this client sends.
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case delete = "DELETE"
    }

    /// POSTs `body` to `url` (http or https) with `headers`; any HTTP answer is a response, whatever its status.
    public func send(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws(TransportError)
        -> HTTPExchangeResponse
    {
        try await send(.post, url: url, headers: headers, body: body)
    }

    /// Sends one request (`body` only with POST); any HTTP answer is a response, whatever its status.
    public func send(
        _ method: Method, url: String, headers: [(name: String, value: String)],
        body: [UInt8] = []
    ) async throws(TransportError) -> HTTPExchangeResponse {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<HTTPExchangeResponse, TransportError>, Never>) in
            let request = self
            let lines = headers.map { "\($0.name): \($0.value)" }
            _ = DedicatedThread(name: "apnsd-http") {
                continuation.resume(returning: request.perform(method, url: url, headerLines: lines, body: body))
            }
        }
        return try result.get()
    }

    /// The blocking transfer.
    private func perform(_ method: Method, url: String, headerLines: [String], body: [UInt8]) -> Result<
        HTTPExchangeResponse, TransportError
    > {
        Curl.ensureInitialized()
        guard let easy = curl_easy_init() else {
            return .failure(
                TransportError(
                    kind: .other, curlCode: 0, message: "curl_easy_init failed", isConnectionFatal: false,
                    isRetryable: true))
        }
        defer { curl_easy_cleanup(easy) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        // "Expect:" turns off the 100-continue round trip libcurl adds to bigger bodies.
        for line in headerLines + ["Expect:"] { headerList = curl_slist_append(headerList, line) }
        defer { curl_slist_free_all(headerList) }
        let collector = ResponseCollector(limit: maximumResponseBody)
        let errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var ok = true
        func set(_ option: CURLoption, _ value: Int) {
            ok = ok && apnsd_easy_setopt_long(easy, option, value) == CURLE_OK
        }
        func set(_ option: CURLoption, _ text: String) {
            ok = ok && text.withCString { apnsd_easy_setopt_ptr(easy, option, $0) } == CURLE_OK
        }
        set(CURLOPT_URL, url)  // libcurl copies strings
        set(CURLOPT_PROTOCOLS_STR, requireHTTP2 ? "https" : "http,https")
        if requireHTTP2 { set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)) }
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeout.milliseconds)
        set(CURLOPT_TIMEOUT_MS, timeout.milliseconds)
        switch proxy {
        case .none: set(CURLOPT_PROXY, "")  // "" also turns off libcurl's proxy variables
        case .environment: break
        case .url(let url): set(CURLOPT_PROXY, url)
        }
        if let caFile { set(CURLOPT_CAINFO, caFile) }
        if let identity = clientIdentity {
            // Blobs are copied by libcurl (CURL_BLOB_COPY), so the PEM bytes need not outlive this call.
            func setBlob(_ option: CURLoption, _ bytes: [UInt8]) {
                bytes.withUnsafeBytes { buffer in
                    var blob = curl_blob(
                        data: UnsafeMutableRawPointer(mutating: buffer.baseAddress), len: buffer.count,
                        flags: UInt32(CURL_BLOB_COPY))
                    ok =
                        ok
                        && withUnsafePointer(to: &blob) { apnsd_easy_setopt_ptr(easy, option, UnsafeRawPointer($0)) }
                            == CURLE_OK
                }
            }
            setBlob(CURLOPT_SSLCERT_BLOB, identity.certificateChainPEM)
            set(CURLOPT_SSLCERTTYPE, "PEM")
            setBlob(CURLOPT_SSLKEY_BLOB, identity.privateKeyPEM)
            set(CURLOPT_SSLKEYTYPE, "PEM")
        }
        switch method {
        case .post: set(CURLOPT_POST, 1)
        case .get: set(CURLOPT_HTTPGET, 1)
        case .delete: set(CURLOPT_CUSTOMREQUEST, "DELETE")
        }
        let sentBody = method == .post ? body : []
        let code: CURLcode = sentBody.withUnsafeBytes { bodyBytes in
            errorBuffer.withUnsafeBufferPointer { errorBytes in
                if method == .post {
                    ok =
                        ok
                        && apnsd_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bodyBytes.count))
                            == CURLE_OK
                    // POSTFIELDS is not copied: the body stays valid until curl_easy_perform returns.
                    ok =
                        ok
                        && apnsd_easy_setopt_ptr(
                            easy, CURLOPT_POSTFIELDS, bodyBytes.baseAddress ?? UnsafeRawPointer(errorBytes.baseAddress!)
                        ) == CURLE_OK
                }
                ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headerList) == CURLE_OK
                ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBytes.baseAddress) == CURLE_OK
                let user = Unmanaged.passUnretained(collector).toOpaque()
                ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, user) == CURLE_OK
                ok =
                    ok
                    && apnsd_easy_setopt_write_cb(easy, CURLOPT_WRITEFUNCTION, HTTPExchange.writeCallback) == CURLE_OK
                ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, user) == CURLE_OK
                ok =
                    ok
                    && apnsd_easy_setopt_write_cb(easy, CURLOPT_HEADERFUNCTION, HTTPExchange.headerCallback) == CURLE_OK
                guard ok else { return CURLE_BAD_FUNCTION_ARGUMENT }
                return withExtendedLifetime(collector) { curl_easy_perform(easy) }
            }
        }
        guard code == CURLE_OK else {
            return .failure(
                TransportError(
                    curlCode: code,
                    detail: String(
                        decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        var status = 0
        _ = apnsd_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPExchangeResponse(status: status, body: collector.bytes, headers: collector.headers))
    }

    /// CURLOPT_WRITEFUNCTION: keeps the start of the body.
    private static let writeCallback:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
            data, size, count, user in
            let length = size * count
            guard let data, let user, length > 0 else { return length }
            let collector = Unmanaged<ResponseCollector>.fromOpaque(user).takeUnretainedValue()
            let room = collector.limit - collector.bytes.count
            if room > 0 {
                collector.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(room, length)))
            }
            return length
        }

    /// CURLOPT_HEADERFUNCTION: one header line per call; keeps `name: value` lines of the final response (a
    /// status line starts over, so an interim 100's headers are not kept).
    private static let headerCallback:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
            data, size, count, user in
            let length = size * count
            guard let data, let user, length > 0 else { return length }
            let collector = Unmanaged<ResponseCollector>.fromOpaque(user).takeUnretainedValue()
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                collector.headers = []
                collector.headerBytes = 0
                return length
            }
            guard let colon = line.firstIndex(of: ":"),
                collector.headerBytes + length <= HTTPExchange.maximumResponseHeaders
            else { return length }
            collector.headerBytes += length
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t\r\n")
            collector.headers.append((name, value))
            return length
        }
}

/// The response of one transfer, filled by the callbacks on the transfer's thread only.
private final class ResponseCollector {
    let limit: Int
    var bytes: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var headerBytes = 0

    init(limit: Int) { self.limit = limit }
}

extension StringProtocol {
    /// The text without the given characters at either end.
    fileprivate func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, set.unicodeScalars.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, set.unicodeScalars.contains(last) { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
