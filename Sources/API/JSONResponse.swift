import HTTPServer
import Logging

/// The API's JSON answers: `Content-Type: application/json`.
enum JSONResponse {
    static let contentType = "application/json"

    /// `json` (already serialized) with `status`.
    static func make(_ status: Int, _ json: String, headers extra: [(String, String)] = []) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": contentType]
        for (name, value) in extra { headers.add(name, value) }
        return HTTPResponse(status: status, headers: headers, body: Array((json + "\n").utf8))
    }

    /// A JSON object of string values, keys in the order given.
    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(JSONText.quote($0.0)):\(JSONText.quote($0.1))" }.joined(separator: ",") + "}"
    }

    /// A JSON array of already-serialized values.
    static func array(_ items: some Sequence<String>) -> String {
        "[" + items.joined(separator: ",") + "]"
    }
}
