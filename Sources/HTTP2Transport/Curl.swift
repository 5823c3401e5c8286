internal import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Process-wide libcurl set-up, done once before the first handle: `curl_global_init` and SIGPIPE ignored.
enum Curl {
    private static let initialized: Bool = {
        signal(SIGPIPE, SIG_IGN)
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        precondition(code == CURLE_OK, "curl_global_init failed: \(code.rawValue)")
        return true
    }()

    /// Runs the one-time initialisation (thread-safe: Swift runs a static initialiser once).
    static func ensureInitialized() { _ = initialized }

    /// Whether the linked libcurl supports HTTP/2 (built with nghttp2).
    static var supportsHTTP2: Bool {
        ensureInitialized()
        guard let info = curl_version_info(CURLVERSION_TENTH) else { return false }
        return info.pointee.features & Int32(CURL_VERSION_HTTP2) != 0
    }

    /// The libcurl version string, e.g. "7.88.1".
    static var version: String {
        ensureInitialized()
        guard let info = curl_version_info(CURLVERSION_TENTH), let v = info.pointee.version else { return "?" }
        return String(cString: v)
    }
}
