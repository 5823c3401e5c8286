import HTTPServer

/// The API's JSON answers: `Content-Type: application/json`, errors as `{"error": {"code": …, "message": …}}`.
enum JSONResponse {
    static let contentType = "application/json"

    /// `json` (already serialized) with `status`.
    static func make(_ status: Int, _ json: String, headers extra: [(String, String)] = []) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": contentType]
        for (name, value) in extra { headers.add(name, value) }
        return HTTPResponse(status: status, headers: headers, body: Array((json + "\n").utf8))
    }

    /// An error answer: `code` is snake_case, `message` one sentence for a person.
    static func error(_ status: Int, code: String, message: String, headers: [(String, String)] = []) -> HTTPResponse {
        make(status, #"{"error": {"code": \#(Output.quote(code)), "message": \#(Output.quote(message))}}"#, headers: headers)
    }

    /// A JSON object of string values, keys in the order given.
    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(Output.quote($0.0)): \(Output.quote($0.1))" }.joined(separator: ", ") + "}"
    }
}
