import HTTPServer
import QueueModel

/// What is decided from a request's head alone, before its body is read: the route, the API key and its scope.
extension API {
    /// The server's head check (`HTTPServer.start(headCheck:)`): a request that announces a body is answered 404,
    /// 405, 401 or 403 here, before a byte of its body is read; nil lets it go on (its handler checks the key
    /// again, from the authenticator's memory).
    public func checkHead(_ head: HTTPHead) async -> HTTPResponse? {
        let start = ContinuousClock.now
        let refused: (template: String, response: HTTPResponse)
        switch Self.router.match(method: head.method, path: head.path) {
        case .notFound:
            refused = ("unmatched", Self.unrouted(head.path))
        case .methodNotAllowed(let template, let allowed):
            refused = (template, Self.notAllowed(template, allowed, head.method))
        case .found(let route, _):
            do throws(APIError) {
                _ = try await authorize(route, head.headers)
                return nil
            } catch {
                refused = (route.template, error.response)
            }
        }
        record(head.method, refused.template, nil, refused.response, since: start)
        return refused.response
    }

    /// The key a route needs, checked: nil when the route needs none; 401 without a valid key, 403 when the key
    /// lacks the route's scope.
    func authorize(_ route: Route, _ headers: HTTPHeaders) async throws(APIError) -> APIKeyRecord? {
        if route.access == .open { return nil }
        let key = try await authenticator.authenticate(headers["Authorization"])
        if case .scope(let scope) = route.access, !key.allows(scope) {
            throw APIError(403, "forbidden", "API key '\(key.name)' lacks the \(scope) scope this route needs")
        }
        return key
    }

    static func unrouted(_ path: String) -> HTTPResponse { APIError.notFound("no route for \(path)").response }

    static func notAllowed(_ template: String, _ allowed: [String], _ method: String) -> HTTPResponse {
        let list = allowed.joined(separator: ", ")
        return APIError(
            405, "method_not_allowed", "\(template) allows \(list), not \(method)", headers: [("Allow", list)]
        ).response
    }
}
