import API
import Foundation
import TestSupport
import Testing

/// `/console/`: its files served from the binary with the headers that keep the pages to their own origin, a page's
/// first load under 200 KB, and code that puts no API string into HTML (what a browser does with them is
/// ConsoleBrowserTests').
@Suite struct ConsoleRouteTests {
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    @Test func everyFileIsServedWithItsTypeAndTheSecurityHeadersWithoutAKey() async throws {
        let api = try await APITester()
        await withCleanup(await api.close()) {
            let moved = await api.call("GET", "/console", key: nil)
            #expect(moved.status == 308 && moved.headers["location"] == "/console/", "\(moved.status) \(moved.headers)")

            let index = await api.call("GET", "/console/", key: nil)
            #expect(index.status == 200 && index.headers["content-type"] == "text/html; charset=utf-8")
            #expect(index.text.contains(#"<script type="module" src="app.js"></script>"#))
            var files = ["index.html"]
            var pending = ["app.js", "console.css"]
            var bytes = index.text.utf8.count
            while let name = pending.popLast() {
                guard !files.contains(name) else { continue }
                files.append(name)
                let answer = await api.call("GET", "/console/\(name)", key: nil)
                #expect(answer.status == 200, "\(name): \(answer.status)")
                let type = name.hasSuffix(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8"
                #expect(answer.headers["content-type"] == type, "\(name): \(answer.headers)")
                bytes += answer.text.utf8.count
                // Each module's imports are files the console serves.
                pending += Self.imports(answer.text)
            }
            #expect(files.count >= 10, "\(files)")
            #expect(bytes < 200_000, "a first load of \(bytes) bytes")
            for name in files {
                let answer = await api.call("GET", name == "index.html" ? "/console/" : "/console/\(name)", key: nil)
                #expect(answer.headers["content-security-policy"] == Self.policy, "\(name)")
                #expect(answer.headers["x-content-type-options"] == "nosniff", "\(name)")
                #expect(answer.headers["referrer-policy"] == "no-referrer", "\(name)")
            }
            #expect(await api.call("GET", "/console/nothing.js", key: nil).status == 404)
            #expect(await api.call("GET", "/console/app.js", key: api.reader).status == 200)
            #expect(await api.call("POST", "/console/", key: nil).status == 405)
        }
    }

    @Test func noStringReachesTheDocumentAsHTML() async throws {
        let api = try await APITester()
        await withCleanup(await api.close()) {
            let index = await api.call("GET", "/console/", key: nil).text
            // Inline code or styles would need 'unsafe-inline'; the policy forbids them, so none is written.
            #expect(!index.contains("<script>") && !index.contains(" style=") && !index.contains(" onclick="))
            var pending = ["app.js"]
            var seen: Set<String> = []
            while let name = pending.popLast() {
                guard seen.insert(name).inserted else { continue }
                let code = await api.call("GET", "/console/\(name)", key: nil).text
                for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"]
                {
                    #expect(!code.contains(sink), "\(name) uses \(sink)")
                }
                #expect(!code.contains("localStorage"), "\(name): the key is kept in sessionStorage only")
                pending += Self.imports(code)
            }
        }
    }

    /// The files a module imports (`from './name.js'`).
    static func imports(_ code: String) -> [String] {
        code.components(separatedBy: "from './").dropFirst().compactMap { rest in
            rest.split(separator: "'", maxSplits: 1).first.map(String.init)
        }
    }
}
