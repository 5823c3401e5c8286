import HTTPServer
import Logging

extension API {
    /// `GET /v1/key`: the name and scopes of the key the request came with, so that a client (the console) shows
    /// only what the key may do. Any live key may ask.
    static func getKey(_ request: APIRequest) -> HTTPResponse {
        // The route's access (any key) has checked one; without it there is nothing to describe.
        guard let key = request.key else { return APIError(401, "unauthorized", "no API key was sent").response }
        let scopes = JSONResponse.array(key.sortedScopes.map { JSONText.quote($0.rawValue) })
        return JSONResponse.make(200, #"{"name":\#(JSONText.quote(key.name)),"scopes":\#(scopes)}"#)
    }
}
