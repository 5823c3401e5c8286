import HTTPServer
import Logging
import QueueModel

/// An API request that cannot be answered as asked: the status, a snake_case code, one sentence for a person,
/// and the field at fault when there is one. Rendered as `{"error": {"code", "message", "field"}}`.
struct APIError: Error, Sendable {
    var status: Int
    var code: String
    var message: String
    var field: String?
    /// The index of the batch item at fault (`POST /v1/notifications/batch`).
    var index: Int?
    var headers: [(String, String)] = []

    init(
        _ status: Int, _ code: String, _ message: String, field: String? = nil, index: Int? = nil,
        headers: [(String, String)] = []
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.index = index
        self.headers = headers
    }

    /// 400: the request breaks a rule.
    static func invalid(_ message: String, field: String? = nil) -> APIError {
        APIError(400, "invalid_request", message, field: field)
    }

    static func notFound(_ message: String) -> APIError { APIError(404, "not_found", message) }

    /// The answer for a store failure: the database's own faults are 503 (retry later), the rest say what is wrong.
    static func store(_ error: StoreError) -> APIError {
        switch error {
        case .unknownCampaign(let id): return .notFound("no notification or campaign \(id)")
        case .invalidCampaign(let why): return .invalid(why)
        case .invalidDevice(let why): return .invalid(why)
        case .invalidChannel: return APIError(409, "conflict", "\(error)")
        case .idempotencyConflict: return APIError(422, "idempotency_key_reused", "\(error)")
        case .notADraft: return APIError(409, "conflict", "\(error)")
        case .ambiguousDevice: return .invalid("\(error)", field: "topic")
        case .databaseLocked, .diskFull, .ioError, .readOnly, .unavailable, .databaseMissing, .cannotOpen, .closed,
            .newerSchema, .olderSchema,
            .engineFailure:
            return APIError(
                503, "database_unavailable", "the database cannot be used right now; retry later",
                headers: [("Retry-After", "1")])
        default: return APIError(500, "internal_error", "\(error)")
        }
    }

    var response: HTTPResponse {
        var fields = "\"code\":\(JSONText.quote(code)),\"message\":\(JSONText.quote(message))"
        if let field { fields += ",\"field\":\(JSONText.quote(field))" }
        if let index { fields += ",\"index\":\(index)" }
        return JSONResponse.make(status, "{\"error\":{\(fields)}}", headers: headers)
    }
}
