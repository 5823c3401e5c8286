internal import CCurl
import Threads

/// One HTTP(S) POST on libcurl's easy interface (the webhook's): a handle per call, performed on a thread of its
/// own so the blocking call never occupies Swift's cooperative pool. TLS peer and host verification are always
/// on; proxy variables are ignored; redirects are not followed.
public struct HTTPPost: Sendable {
    /// The whole request's limit, connection included.
    public var timeout: Duration
    public var connectTimeout: Duration
    /// An extra PEM CA to trust; the system's otherwise.
    public var caFile: String?

    /// Response bytes kept (the rest is read and dropped).
    public static let maximumResponseBody = 4096

    public init(timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10), caFile: String? = nil) {
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.caFile = caFile
    }

    /// POSTs `body` to `url` (http or https) with `headers`; any HTTP answer is a response, whatever its status.
    public func send(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws(TransportError) -> HTTPPostResponse {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPPostResponse, TransportError>, Never>) in
            let request = self
            let lines = headers.map { "\($0.name): \($0.value)" }
            _ = DedicatedThread(name: "apnsd-http-post") {
                continuation.resume(returning: request.perform(url: url, headerLines: lines, body: body))
            }
        }
        return try result.get()
    }

    /// The blocking transfer.
    private func perform(url: String, headerLines: [String], body: [UInt8]) -> Result<HTTPPostResponse, TransportError> {
        Curl.ensureInitialized()
        guard let easy = curl_easy_init() else {
            return .failure(TransportError(kind: .other, curlCode: 0, message: "curl_easy_init failed", isConnectionFatal: false, isRetryable: true))
        }
        defer { curl_easy_cleanup(easy) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        // "Expect:" turns off the 100-continue round trip libcurl adds to bigger bodies.
        for line in headerLines + ["Expect:"] { headerList = curl_slist_append(headerList, line) }
        defer { curl_slist_free_all(headerList) }
        let collector = ResponseCollector()
        let errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var ok = true
        func set(_ option: CURLoption, _ value: Int) { ok = ok && apnsd_easy_setopt_long(easy, option, value) == CURLE_OK }
        func set(_ option: CURLoption, _ text: String) { ok = ok && text.withCString { apnsd_easy_setopt_ptr(easy, option, $0) } == CURLE_OK }
        set(CURLOPT_URL, url)  // libcurl copies strings
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeout.milliseconds)
        set(CURLOPT_TIMEOUT_MS, timeout.milliseconds)
        set(CURLOPT_PROXY, "")  // "" also turns off libcurl's proxy variables
        if let caFile { set(CURLOPT_CAINFO, caFile) }
        set(CURLOPT_POST, 1)
        let code: CURLcode = body.withUnsafeBytes { bodyBytes in
            errorBuffer.withUnsafeBufferPointer { errorBytes in
                ok = ok && apnsd_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bodyBytes.count)) == CURLE_OK
                // POSTFIELDS is not copied: the body stays valid until curl_easy_perform returns.
                ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, bodyBytes.baseAddress ?? UnsafeRawPointer(errorBytes.baseAddress!)) == CURLE_OK
                ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headerList) == CURLE_OK
                ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBytes.baseAddress) == CURLE_OK
                ok = ok && apnsd_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(collector).toOpaque()) == CURLE_OK
                ok = ok && apnsd_easy_setopt_write_cb(easy, CURLOPT_WRITEFUNCTION, HTTPPost.writeCallback) == CURLE_OK
                guard ok else { return CURLE_BAD_FUNCTION_ARGUMENT }
                return withExtendedLifetime(collector) { curl_easy_perform(easy) }
            }
        }
        guard code == CURLE_OK else {
            return .failure(TransportError(curlCode: code, detail: String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        var status = 0
        _ = apnsd_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPPostResponse(status: status, body: collector.bytes))
    }

    /// CURLOPT_WRITEFUNCTION: keeps the start of the body.
    private static let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data, size, count, user in
        let length = size * count
        guard let data, let user, length > 0 else { return length }
        let collector = Unmanaged<ResponseCollector>.fromOpaque(user).takeUnretainedValue()
        let room = HTTPPost.maximumResponseBody - collector.bytes.count
        if room > 0 { collector.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(room, length))) }
        return length
    }
}

/// The response body of one transfer, filled by the write callback on the transfer's thread only.
private final class ResponseCollector {
    var bytes: [UInt8] = []
}
