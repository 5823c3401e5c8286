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
        guard let result = try? ToolRun.run("/usr/bin/curl", ["-sS", "--noproxy", "*", "--max-time", "30", "-i", "-X", method, url]),
              result.status == 0,
              let split = result.stdout.range(of: "\r\n\r\n") else { return nil }
        let head = result.stdout[..<split.lowerBound].split(separator: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: String(result.stdout[split.upperBound...]))
    }
}
