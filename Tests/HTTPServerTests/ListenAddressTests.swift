import Testing

@testable import HTTPServer

@Suite struct ListenAddressTests {
    @Test func parsesIPv4IPv6AndLocalhost() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        let v6 = try ListenAddress(parsing: "[::1]:0")
        #expect(v6.family == .ipv6 && v6.host == "::1" && v6.port == 0 && v6.description == "[::1]:0")
        #expect(try ListenAddress(parsing: "localhost:1").host == "127.0.0.1")
        #expect(try ListenAddress(parsing: "0.0.0.0:65535").port == 65535)
    }

    @Test(arguments: [
        "", "8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:x", "127.0.0.1:65536", "::1:80", "[::1]80",
        "[::1", "example.com:80", "1.2.3:80", "[127.0.0.1x]:80", "127.0.0.1:-1", "127.0.0.1:+80",
    ])
    func refusesBadInputInOneLine(text: String) {
        #expect(throws: HTTPServerError.self) { try ListenAddress(parsing: text) }
        do { _ = try ListenAddress(parsing: text) } catch {
            let line = "\(error)"
            #expect(line.hasPrefix("listen address \"\(text)\": ") && !line.contains("\n"), "\(line)")
        }
    }
}
