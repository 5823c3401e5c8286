import Foundation
import TestSupport
import Testing

@testable import HTTPServer

@Suite struct HTTPServerTests {
    static let local = try! ListenAddress(parsing: "127.0.0.1:0")

    /// Echoes what it was given: method, path, query, one header, body size.
    static let echo: HTTPHandler = { request in
        let query = request.query.map { "\($0.name)=\($0.value ?? "-")" }.joined(separator: "&")
        let text =
            "\(request.method) \(request.path) \(query) x=\(request.headers["x-TEST"] ?? "") body=\(request.body.count) from=\(request.remoteAddress)\n"
        return HTTPResponse(status: 200, headers: ["X-Reply": "yes"], body: Array(text.utf8))
    }

    @Test func portZeroReportsTheBoundPortAndKeepAliveReusesOneConnection() async throws {
        let server = try HTTPServer.start(listen: Self.local, handler: Self.echo)
        let port = server.address.port
        #expect(port != 0 && server.address.host == "127.0.0.1")
        #expect(Ports.isListening(port))
        let base = "http://127.0.0.1:\(port)"
        let result = try await Tool.curl([
            "-H", "X-Test: hello", "-w", "connects=%{num_connects} code=%{http_code}\n",
            "\(base)/a?x=1&flag", "\(base)/b%20c", "\(base)/c",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("GET /a x=1&flag=- x=hello body=0 from=127.0.0.1"), "\(result.stdout)")
        #expect(result.stdout.contains("GET /b c  x=hello"), "\(result.stdout)")
        let connects = result.stdout.split(separator: "\n").filter { $0.hasPrefix("connects=") }
        #expect(connects == ["connects=1 code=200", "connects=0 code=200", "connects=0 code=200"], "\(result.stdout)")
        let posted = try await Tool.curl(["-i", "--data-binary", "0123456789", "\(base)/post"])
        #expect(posted.stdout.contains("POST /post  x= body=10"), "\(posted.stdout)")
        #expect(posted.stdout.lowercased().contains("x-reply: yes"), "\(posted.stdout)")
        await server.stop()
        // The port may already be another test's (the kernel hands it out again): what matters is that this server
        // no longer answers on it.
        let after = try await Tool.curl(["-m", "10", "\(base)/after"])
        #expect(after.status != 0 || !after.stdout.contains("GET /after"), "\(after.stdout)")
    }

    @Test func aWaitingHandlerDoesNotHoldUpAnotherConnection() async throws {
        let entered = Flag()
        let release = Flag()
        let server = try HTTPServer.start(listen: Self.local) { request in
            if request.path == "/slow" {
                entered.set()
                await release.wait()
            }
            return HTTPResponse(status: 200, text: "done \(request.path)\n")
        }
        let base = "http://127.0.0.1:\(server.address.port)"
        async let slow = Tool.curl(["\(base)/slow"])
        #expect(await entered.wait())
        let fast = try await Tool.curl(["\(base)/fast"])
        #expect(fast.stdout == "done /fast\n", "\(fast.stderr)")
        #expect(!release.isSet)
        release.set()
        #expect(try await slow.stdout == "done /slow\n")
        await server.stop()
    }

    @Test func aDeclaredOversizeBodyIsRefusedBeforeItIsRead() async throws {
        let server = try HTTPServer.start(
            listen: Self.local, bodyLimit: { _, path in path == "/small" ? 1000 : HTTPServer.defaultBodyLimit },
            handler: Self.echo)
        let base = "http://127.0.0.1:\(server.address.port)"
        let fits = try await Tool.curl([
            "-w", "%{http_code}", "--data-binary", String(repeating: "a", count: 1000), "\(base)/small",
        ])
        #expect(fits.stdout.hasSuffix("200") && fits.stdout.contains("body=1000"), "\(fits.stdout) \(fits.stderr)")
        let over = try await Tool.curl([
            "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", String(repeating: "a", count: 1001),
            "\(base)/small",
        ])
        #expect(over.stdout == "413", "\(over.stdout) \(over.stderr)")
        // A huge declared length is refused at once (curl waits for 100-continue; it never sends the body).
        let huge = try await Tool.curl([
            "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Length: 1073741824", "--data-binary", "x",
            "\(base)/any",
        ])
        #expect(huge.stdout == "413", "\(huge.stdout) \(huge.stderr)")
        // The server still answers afterwards.
        #expect(try await Tool.curl(["\(base)/after"]).stdout.contains("GET /after"))
        await server.stop()
    }

    /// The server stops reading a chunked body once it passes the limit. Its memory is measured where it runs alone
    /// (APIRobustnessTests, `apnsd serve` in a process of its own): this process's RSS also holds every test running
    /// beside this one.
    @Test func aStreamedOversizeBodyIsCutOffAtTheLimit() async throws {
        let server = try HTTPServer.start(listen: Self.local, handler: Self.echo)
        let url = "http://127.0.0.1:\(server.address.port)/upload"
        // 200 MiB of zeros, chunked: no length is declared, so the limit is found while reading.
        let streamed = try await Tool.run(
            "/bin/sh",
            [
                "-c",
                "head -c 209715200 /dev/zero | curl -sS --noproxy '*' --max-time 120 -o /dev/null -w '%{http_code} %{size_upload}' -H 'Transfer-Encoding: chunked' --data-binary @- '\(url)'",
            ])
        let fields = streamed.stdout.split(separator: " ")
        // curl may see the close before it reads the 413 (it is still sending): then it reports a send error.
        #expect(
            fields.first == "413" || streamed.stderr.contains("curl: (55)") || streamed.stderr.contains("curl: (56)"),
            "\(streamed.stdout) \(streamed.stderr)")
        let uploaded = try #require(fields.last.flatMap { Int($0) }, "no upload size: \(streamed.stdout)")
        // The default limit is 1 MiB; socket buffers take a few MiB more before the close reaches curl.
        #expect(uploaded < 64 << 20, "the server read \(uploaded) bytes of a body over its 1 MiB limit")
        #expect(try await Tool.curl(["http://127.0.0.1:\(server.address.port)/after"]).stdout.contains("GET /after"))
        await server.stop()
    }

    @Test func aSlowClientDoesNotStopAnotherBeingServed() async throws {
        let server = try HTTPServer.start(listen: Self.local, handler: Self.echo)
        let port = server.address.port
        let stalled = try Self.connect(port: port)
        defer { close(stalled) }
        let half = "POST /stalled HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf"
        #expect(half.withCString { send(stalled, $0, strlen($0), 0) } > 0)
        let other = try await Tool.curl(["http://127.0.0.1:\(port)/other"])
        #expect(other.stdout.contains("GET /other"), "\(other.stderr)")
        await server.stop(deadline: .milliseconds(100))
    }

    @Test func servesHTTPSWithAThrowawayCertificate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "httpserver-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let made = try await Tool.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                "-days", "2", "-keyout", key, "-out", cert,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let server = try HTTPServer.start(
            listen: Self.local,
            tls: (
                try String(contentsOfFile: cert, encoding: .utf8),
                try String(contentsOfFile: key, encoding: .utf8)
            ),
            handler: Self.echo)
        #expect(server.isTLS)
        let result = try await Tool.curl(["--cacert", cert, "https://127.0.0.1:\(server.address.port)/secure"])
        #expect(result.stdout.contains("GET /secure"), "\(result.stderr)")
        await server.stop()
        #expect(throws: HTTPServerError.self) {
            try HTTPServer.start(listen: Self.local, tls: ("not a certificate", "not a key"), handler: Self.echo)
        }
    }

    @Test func listensOnIPv6LoopbackWhenTheMachineHasIt() async throws {
        let server: HTTPServer
        do {
            server = try HTTPServer.start(listen: try ListenAddress(parsing: "[::1]:0"), handler: Self.echo)
        } catch {
            return  // no IPv6 loopback here: nothing to test
        }
        #expect(server.address.port != 0 && server.address.description.hasPrefix("[::1]:"))
        let result = try await Tool.curl(["-g", "http://[::1]:\(server.address.port)/six"])
        #expect(
            result.stdout.contains("GET /six") && result.stdout.contains("from=::1"),
            "\(result.stdout) \(result.stderr)")
        await server.stop()
    }

    @Test func gracefulStopFinishesTheRequestInFlight() async throws {
        let entered = Flag()
        let release = Flag()
        let server = try HTTPServer.start(listen: Self.local) { request in
            entered.set()
            await release.wait()
            return HTTPResponse(status: 200, text: "finished\n")
        }
        let port = server.address.port
        async let inFlight = Tool.curl(["-w", " %{http_code}", "http://127.0.0.1:\(port)/work"])
        #expect(await entered.wait())
        let stopping = Task { await server.stop(deadline: .seconds(60)) }
        let stoppedAccepting = Flag()
        while !stoppedAccepting.isSet {
            if !Ports.isListening(port) { stoppedAccepting.set() } else { try await Task.sleep(for: .milliseconds(10)) }
        }
        release.set()
        #expect(try await inFlight.stdout == "finished\n 200")
        await stopping.value
    }

    @Test func aStopPastItsDeadlineAnswers503() async throws {
        let entered = Flag()
        let server = try HTTPServer.start(listen: Self.local) { _ in
            entered.set()
            await Flag().wait(seconds: 600)
            return HTTPResponse(status: 200, text: "too late\n")
        }
        async let stuck = Tool.curl([
            "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(server.address.port)/stuck",
        ])
        #expect(await entered.wait())
        await server.stop(deadline: .milliseconds(50))
        #expect(try await stuck.stdout == "503")
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected != 0 { throw HTTPServerError.startFailed("127.0.0.1:\(port)", "test client could not connect") }
        return fd
    }
}
