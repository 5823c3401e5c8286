import Foundation

/// curl as the tests' HTTP client: one request, its status, headers and body. curl rather than URLSession, so that a
/// test sends exactly the headers and body it states (no defaults added, a method with any body).
public enum HTTPClient {
    public struct Response: Sendable {
        public var status: Int
        /// Lower-cased names.
        public var headers: [String: String]
        public var body: String
    }

    /// `method url` through curl (never a proxy); nil when curl got no answer.
    public static func request(_ method: String, _ url: String) -> Response? {
        request(method, url, headers: [])
    }

    /// `method url` with request headers (`"Name: value"`), a body given as text (sent from curl's stdin) or read
    /// from a file, and any further curl arguments (`--cacert`); nil when curl got no answer. Blocks its thread.
    public static func request(
        _ method: String, _ url: String, headers: [String], body: String? = nil, bodyFile: String? = nil,
        curl extra: [String] = []
    ) -> Response? {
        let arguments = arguments(method, url, headers: headers, body: body, bodyFile: bodyFile, curl: extra)
        guard let result = try? ToolRun.run("/usr/bin/curl", arguments, stdin: body), result.status == 0 else {
            return nil
        }
        return parse(result.stdout)
    }

    /// Like `request`, awaiting curl instead of blocking a thread of the cooperative pool (which the server's
    /// handlers need meanwhile).
    public static func request(
        _ method: String, _ url: String, headers: [String], body: String? = nil, bodyFile: String? = nil,
        curl extra: [String] = []
    ) async -> Response? {
        let arguments = arguments(method, url, headers: headers, body: body, bodyFile: bodyFile, curl: extra)
        guard let result = try? await ToolRun.run("/usr/bin/curl", arguments, stdin: body), result.status == 0 else {
            return nil
        }
        return parse(result.stdout)
    }

    private static func arguments(
        _ method: String, _ url: String, headers: [String], body: String?, bodyFile: String?, curl extra: [String]
    ) -> [String] {
        var arguments = ["-sS", "--noproxy", "*", "--max-time", "30", "-i", "-X", method]
        for header in headers { arguments += ["-H", header] }
        if body != nil { arguments += ["--data-binary", "@-"] }
        if let bodyFile { arguments += ["--data-binary", "@" + bodyFile] }
        return arguments + extra + [url]
    }

    /// curl's `-i` output: skips interim `100 Continue` heads (curl sends `Expect: 100-continue` for large bodies).
    public static func parse(_ output: String) -> Response? {
        var rest = Substring(output)
        while true {
            guard let split = rest.range(of: "\r\n\r\n") else { return nil }
            let head = rest[..<split.lowerBound].split(separator: "\r\n")
            guard let statusLine = head.first,
                let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
            else { return nil }
            rest = rest[split.upperBound...]
            if (100..<200).contains(status) { continue }
            var headers: [String: String] = [:]
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            return Response(status: status, headers: headers, body: String(rest))
        }
    }
}
