import HTTPServer
import QueueModel

/// Who may call a route.
enum Access: Sendable, Hashable {
    /// Anyone, without a key: the probes, the metrics and the OpenAPI document.
    case open
    /// Any live API key, whatever its scopes (`GET /v1/key`).
    case anyKey
    /// A live API key with this scope.
    case scope(APIKeyScope)
}

/// One route: a method and a path template (`/v1/campaigns/{id}`), who may call it, its body limit, and its
/// handler.
struct Route: Sendable {
    typealias Handler = @Sendable (API, APIRequest) async throws(APIError) -> HTTPResponse

    var method: String
    var template: String
    var access: Access
    /// In the OpenAPI document: every API route; not the console's files.
    var documented: Bool
    var bodyLimit: Int
    var handler: Handler
    /// The template's segments, split once.
    let segments: [Substring]

    /// Bodies up to 1 MiB; the batch and campaign routes take up to 64 MiB.
    static let defaultBodyLimit = 1 << 20
    static let largeBodyLimit = 64 << 20

    /// A route for keys with `scope` (nil: open to anyone).
    init(
        _ method: String, _ template: String, scope: APIKeyScope?, bodyLimit: Int = defaultBodyLimit,
        _ handler: @escaping Handler
    ) {
        self.init(method, template, access: scope.map(Access.scope) ?? .open, bodyLimit: bodyLimit, handler)
    }

    init(
        _ method: String, _ template: String, access: Access, documented: Bool = true,
        bodyLimit: Int = defaultBodyLimit, _ handler: @escaping Handler
    ) {
        self.method = method
        self.template = template
        self.access = access
        self.documented = documented
        self.bodyLimit = bodyLimit
        self.handler = handler
        segments = template.split(separator: "/", omittingEmptySubsequences: false)
    }
}

/// A request matched to its route: the path parameters and, on `/v1`, the API key it came with.
struct APIRequest: Sendable {
    var http: HTTPRequest
    var parameters: [String: String]
    var key: APIKeyRecord?

    func query(_ name: String) -> String? { http.queryValue(name) }
}

/// Finds the route for a method and path: the template, the route, and the path parameters.
struct Router: Sendable {
    private let routes: [Route]

    init(_ routes: [Route]) { self.routes = routes }

    /// Every route, in declaration order (for the OpenAPI document's tests).
    var all: [Route] { routes }

    enum Match {
        case found(Route, [String: String])
        /// The path is known but not for this method: the methods it allows.
        case methodNotAllowed(template: String, allowed: [String])
        case notFound

        /// The route's template for the metrics and the access log: `unmatched` when no route's path matched.
        var template: String {
            switch self {
            case .found(let route, _): route.template
            case .methodNotAllowed(let template, _): template
            case .notFound: "unmatched"
            }
        }
    }

    func match(method: String, path: String) -> Match {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var allowed: [String] = []
        var template: String?
        for route in routes {
            guard let parameters = Self.parameters(route.segments, parts) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route, parameters)
            }
            allowed.append(route.method)
            template = template ?? route.template
        }
        if let template { return .methodNotAllowed(template: template, allowed: allowed) }
        return .notFound
    }

    private static func parameters(_ template: [Substring], _ parts: [Substring]) -> [String: String]? {
        guard template.count == parts.count else { return nil }
        var parameters: [String: String] = [:]
        for (pattern, part) in zip(template, parts) {
            if pattern.first == "{" && pattern.last == "}" {
                guard !part.isEmpty else { return nil }
                parameters[String(pattern.dropFirst().dropLast())] = String(part)
            } else if pattern != part {
                return nil
            }
        }
        return parameters
    }
}
