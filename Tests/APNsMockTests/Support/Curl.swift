import Foundation

/// One HTTP request for the curl CLI.
struct CurlRequest {
    var method = "POST"
    var path: String
    /// Sent in order; a name may repeat (curl sends both).
    var headers: [(name: String, value: String)] = []
    /// nil sends no body at all.
    var body: [UInt8]?

    /// A push to `/3/device/<token>` with a valid-looking set of headers; change what a test needs.
    static func push(
        token: String, topic: String? = "com.example.app", pushType: String? = "alert",
        authorization: String?, body: [UInt8]? = Array(#"{"aps":{"alert":"hi"}}"#.utf8),
        extra: [(name: String, value: String)] = []
    ) -> CurlRequest {
        var headers: [(name: String, value: String)] = []
        if let authorization { headers.append(("authorization", authorization)) }
        if let topic { headers.append(("apns-topic", topic)) }
        if let pushType { headers.append(("apns-push-type", pushType)) }
        return CurlRequest(path: "/3/device/\(token)", headers: headers + extra, body: body)
    }

    func with(_ name: String, _ value: String) -> CurlRequest {
        var copy = self
        copy.headers.removeAll { $0.name == name }
        copy.headers.append((name, value))
        return copy
    }

    func without(_ name: String) -> CurlRequest {
        var copy = self
        copy.headers.removeAll { $0.name == name }
        return copy
    }
}

/// What curl saw for one request.
struct CurlResponse {
    /// 0 when the transfer failed.
    var status: Int
    /// Lowercased names; repeated headers keep every value.
    var headers: [String: [String]]
    var body: [UInt8]
    /// curl's per-transfer exit code (0 = success).
    var exitCode: Int
    /// Whether curl opened a new connection for this transfer (0 = reused the previous one).
    var connects: Int
    /// Seconds from "request about to be sent" to "transfer done": the server's think time plus a little I/O.
    /// (curl's time_starttransfer fires when an upload starts, so it cannot measure the wait for the answer.)
    var serverSeconds: Double
    /// Seconds for the whole transfer, connection setup included.
    var totalSeconds: Double

    func header(_ name: String) -> String? { headers[name.lowercased()]?.first }

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object, if it is one.
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }

    var reason: String? { json?["reason"] as? String }
}

/// A TLS client certificate for curl: PEM certificate and key, or a password-protected .p12.
enum ClientCertificateFiles {
    case pem(certificate: String, key: String)
    case p12(path: String, password: String)

    var curlArguments: [String] {
        switch self {
        case .pem(let certificate, let key): return ["--cert", certificate, "--key", key]
        case .p12(let path, let password): return ["--cert-type", "P12", "--cert", "\(path):\(password)"]
        }
    }
}

/// Drives the curl CLI against a TLS HTTP/2 server, several requests per process over one reused connection.
struct Curl {
    let baseURL: String
    let caPath: String
    let directory: TempDirectory
    /// Presented to the server on every connection, when set.
    var clientCertificate: ClientCertificateFiles? = nil

    /// Sends `requests` in order from ONE curl process (joined with `--next`, so curl reuses its connection).
    /// `rate` (e.g. "100/m") spaces the transfers out.
    func send(_ requests: [CurlRequest], rate: String? = nil) throws -> [CurlResponse] {
        let id = UUID().uuidString.prefix(8)
        var arguments = ["-q"]
        for (index, request) in requests.enumerated() {
            if index > 0 { arguments.append("--next") }
            let bodyOut = directory.path("curl-\(id)-\(index).body")
            let headersOut = directory.path("curl-\(id)-\(index).headers")
            arguments += [
                "--http2", "--cacert", caPath, "--silent", "--max-time", "20",
                "--output", bodyOut, "--dump-header", headersOut,
                "--write-out", "\(index) %{http_code} %{exitcode} %{num_connects} %{time_pretransfer} %{time_total}\\n",
                "--request", request.method,
            ]
            if let rate { arguments += ["--rate", rate] }
            if let clientCertificate { arguments += clientCertificate.curlArguments }
            for header in request.headers { arguments += ["--header", "\(header.name): \(header.value)"] }
            if let body = request.body {
                arguments += ["--data-binary", "@" + (try directory.write("curl-\(id)-\(index).request", body))]
            }
            arguments.append(baseURL + request.path)
        }
        let result = try ProcessRunner.run("curl", arguments, in: directory)
        var responses: [CurlResponse] = []
        let lines = result.stdout.split(separator: "\n")
        guard lines.count == requests.count else {
            throw HarnessError(
                "curl wrote \(lines.count) result lines for \(requests.count) requests: \(result.stdout) \(result.stderr)"
            )
        }
        for (index, line) in lines.enumerated() {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 6, Int(fields[0]) == index, let status = Int(fields[1]),
                let exitCode = Int(fields[2]),
                let connects = Int(fields[3]), let pre = Double(fields[4]), let total = Double(fields[5])
            else {
                throw HarnessError("unexpected curl result line '\(line)'")
            }
            let bodyOut = directory.path("curl-\(id)-\(index).body")
            let headersOut = directory.path("curl-\(id)-\(index).headers")
            let body = FileManager.default.contents(atPath: bodyOut).map { Array($0) } ?? []
            var headers: [String: [String]] = [:]
            let headerText = (try? String(contentsOfFile: headersOut, encoding: .utf8)) ?? ""
            for headerLine in headerText.split(whereSeparator: \.isNewline) {
                guard let colon = headerLine.firstIndex(of: ":"), !headerLine.hasPrefix("HTTP/") else { continue }
                let name = headerLine[..<colon].lowercased()
                let value = headerLine[headerLine.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name, default: []].append(value)
            }
            responses.append(
                CurlResponse(
                    status: status, headers: headers, body: body, exitCode: exitCode,
                    connects: connects, serverSeconds: max(0, total - pre), totalSeconds: total))
        }
        return responses
    }

    func send(_ request: CurlRequest) throws -> CurlResponse { try send([request])[0] }
}
