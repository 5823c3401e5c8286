import API
import Foundation
import TestSupport
import Testing

/// `GET /openapi.json` documents exactly the routes the router serves: every method and template on both sides.
@Suite(.offThePool) struct OpenAPIRoutesTests {
    /// "METHOD /template" for every operation of an OpenAPI document's `paths`.
    static func operations(_ document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: [String: Any]], "no paths")
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]
        return Set(
            paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteIsServed() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(cli.run("init").status == 0)
        let (serve, base) = try ServeTests.start(cli, ["--no-worker"])
        defer { serve.killIfRunning() }

        let answer = try #require(HTTPClient.request("GET", base + "/openapi.json"))
        #expect(
            answer.status == 200 && answer.headers["content-type"] == "application/json",
            "\(answer.status) \(answer.headers)")
        let document = try ServeTests.json(answer.body)
        #expect(document["openapi"] as? String == "3.1.0")
        let documented = try Self.operations(document)

        let routed = Set(API.routeTemplates.map { "\($0.method) \($0.template)" })
        #expect(routed.count == API.routeTemplates.count, "a method and template routed twice")
        #expect(
            routed.subtracting(documented).isEmpty,
            "routed but not in /openapi.json: \(routed.subtracting(documented).sorted())")
        let unserved = documented.subtracting(routed)
        #expect(unserved.isEmpty, "in /openapi.json but not routed: \(unserved.sorted())")
    }
}
