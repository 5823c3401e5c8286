import Foundation
import TestSupport

/// curl for the CLI tests: one request to `apnsd serve`, its status, headers and body.
enum HTTPClient {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// `method url` through curl (never a proxy); nil when curl got no answer.
    static func request(_ method: String, _ url: String) -> Response? {
        request(method, url, headers: [])
    }

    /// `method url` with request headers (`"Name: value"`), a body given as text (sent from curl's stdin) or read
    /// from a file, and any further curl arguments (`--cacert`); nil when curl got no answer.
    static func request(
        _ method: String, _ url: String, headers: [String], body: String? = nil, bodyFile: String? = nil,
        curl extra: [String] = []
    ) -> Response? {
        var arguments = ["-sS", "--noproxy", "*", "--max-time", "30", "-i", "-X", method]
        for header in headers { arguments += ["-H", header] }
        if body != nil { arguments += ["--data-binary", "@-"] }
        if let bodyFile { arguments += ["--data-binary", "@" + bodyFile] }
        guard let result = try? ToolRun.run("/usr/bin/curl", arguments + extra + [url], stdin: body), result.status == 0
        else { return nil }
        return parse(result.stdout)
    }

    /// curl's `-i` output: skips interim `100 Continue` heads (curl sends `Expect: 100-continue` for large bodies).
    static func parse(_ output: String) -> Response? {
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
