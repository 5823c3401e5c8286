import API
import Foundation
import TestSupport
import Testing

/// `GET /openapi.json` documents exactly the routes the router serves: every method and template on both sides.
@Suite struct OpenAPIRoutesTests {
    /// "METHOD /template" for every operation of an OpenAPI document's `paths`.
    static func operations(_ document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: [String: Any]], "no paths")
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]
        return Set(
            paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteIsServed() async throws {
        let h = try await APITester()
        try await withCleanup(await h.close()) {

            let answer = await h.call("GET", "/openapi.json", key: nil)
            #expect(
                answer.status == 200 && answer.headers["content-type"] == "application/json",
                "\(answer.status) \(answer.headers)")
            let document = try APITester.object(answer)
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
}
