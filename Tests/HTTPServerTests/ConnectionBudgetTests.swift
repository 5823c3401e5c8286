import Foundation
import TestSupport
import Testing
import Threads

@testable import HTTPServer

/// The connection budget on real sockets with small caps: head and body deadlines, the per-client and global caps
/// with the probe reserve, the in-flight body budget, and long polls whose client left. Every wait is on a condition
/// with a generous limit; nothing asserts elapsed time.
@Suite struct ConnectionBudgetTests {
    static let local = try! ListenAddress(parsing: "127.0.0.1:0")

    static func options(_ change: (inout HTTPServer.Options) -> Void) -> HTTPServer.Options {
        var options = HTTPServer.Options()
        options.maxConnections = 8
        options.probeReserve = 2
        options.maxConnectionsPerClient = 0
        options.headerTimeout = 600
        options.bodyTimeout = 600
        // libmicrohttpd's own idle timeout too: on a loaded machine a test's idle connections may wait longer than 30 s.
        options.connectionTimeout = 600
        change(&options)
        return options
    }

    static let echo: HTTPHandler = { request in
        HTTPResponse(status: 200, text: "\(request.method) \(request.path) body=\(request.body.count)\n")
    }

    /// Sends `head` line by line, a line every 100 ms, then header lines forever: true once the server closes it.
    static func trickle(_ connection: RawHTTPConnection, seconds: Double = 30) async -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        connection.send("GET /trickle HTTP/1.1\r\n")
        while ContinuousClock.now < end {
            guard connection.send("X-Slow: yes\r\n") else { return true }
            if await connection.closed(within: 0.1) { return true }
        }
        return false
    }

    @Test func aTricklingHeadIsClosedAtItsDeadlineWhileAnotherClientIsServed() async throws {
        let server = try HTTPServer.start(
            listen: Self.local, options: Self.options { $0.headerTimeout = 1 }, handler: Self.echo)
        let port = server.address.port
        // Every slot, the probe reserve's included, taken by a trickling head.
        let tricklers = try (0..<10).map { _ in try RawHTTPConnection(port: port) }
        async let cut = withTaskGroup(of: Bool.self) { group in
            for trickler in tricklers { group.addTask { await Self.trickle(trickler) } }
            return await group.reduce(true) { $0 && $1 }
        }
        // Waits in the listen backlog while the slots are full, until the head deadline frees one.
        let client = try RawHTTPConnection(port: port)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = await client.answer(within: 60)
        #expect(answer?.status == 200 && answer?.body == "GET /healthz body=0\n", "\(String(describing: answer))")
        #expect(await cut, "a trickling head was still open")
        await server.stop()
    }

    @Test func aTricklingBodyIsClosedAtItsDeadline() async throws {
        let server = try HTTPServer.start(
            listen: Self.local, options: Self.options { $0.bodyTimeout = 1 }, handler: Self.echo)
        let port = server.address.port
        let slow = try RawHTTPConnection(port: port)
        slow.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        var closed = false
        let end = ContinuousClock.now + .seconds(30)
        while !closed, ContinuousClock.now < end {
            closed = !slow.send("a")
            if !closed { closed = await slow.closed(within: 0.1) }
        }
        #expect(closed, "a body trickling past its deadline was still open")
        // A body sent at once on another connection is unaffected.
        let quick = try RawHTTPConnection(port: port)
        quick.send("POST /quick HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        #expect(await quick.answer()?.body == "POST /quick body=5\n")
        await server.stop()
    }

    @Test func aClientOverItsPerAddressCapIsClosedAtAccept() async throws {
        let server = try HTTPServer.start(
            listen: Self.local, options: Self.options { $0.maxConnectionsPerClient = 2 }, handler: Self.echo)
        let port = server.address.port
        let first = try RawHTTPConnection(port: port)
        let second = try RawHTTPConnection(port: port)
        #expect(await Poll.until(30, every: 0.01) { server.openConnections == 2 })
        let third = try RawHTTPConnection(port: port)
        third.send("GET /third HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await third.closed(), "the third connection from one address was served")
        #expect(await third.answer(within: 0.1) == nil)
        // The first two are still served.
        first.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await first.answer()?.body == "GET /first body=0\n")
        withExtendedLifetime(second) {}
        await server.stop()
    }

    @Test func pastTheCapOnlyTheProbesAreAnswered() async throws {
        let server = try HTTPServer.start(
            listen: Self.local, options: Self.options { $0.maxConnections = 4 }, handler: Self.echo)
        let port = server.address.port
        var idle = try (0..<4).map { _ in try RawHTTPConnection(port: port) }
        #expect(await Poll.until(30, every: 0.01) { server.openConnections == 4 })
        let probe = try RawHTTPConnection(port: port)
        probe.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await probe.answer()?.status == 200)
        probe.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await probe.answer()?.status == 200)
        probe.send("GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = await probe.answer()
        #expect(refused?.status == 503 && refused?.headers["retry-after"] == "1", "\(String(describing: refused))")
        #expect(await probe.closed())
        // Below the cap again, everything is served.
        idle.removeAll()
        #expect(await Poll.until(30, every: 0.01) { server.openConnections == 0 })
        let later = try RawHTTPConnection(port: port)
        later.send("GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await later.answer()?.status == 200)
        await server.stop()
    }

    @Test func bodiesOverTheInFlightBudgetAreAnswered503() async throws {
        let entered = Flag()
        let release = Flag()
        let server = try HTTPServer.start(
            listen: Self.local, options: Self.options { $0.maxBodyBytesInFlight = 1000 }
        ) { request in
            if request.path == "/hold" {
                entered.set()
                await release.wait()
            }
            return await Self.echo(request)
        }
        let port = server.address.port
        let holder = try RawHTTPConnection(port: port)
        holder.send(
            "POST /hold HTTP/1.1\r\nHost: x\r\nContent-Length: 800\r\n\r\n" + String(repeating: "a", count: 800))
        #expect(await entered.wait())
        #expect(server.bodyBytesInFlight == 800)
        // Over the budget by its declared length: answered from the head.
        let over = try RawHTTPConnection(port: port)
        over.send("POST /over HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n")
        let refused = await over.answer()
        #expect(refused?.status == 503 && refused?.headers["retry-after"] == "1", "\(String(describing: refused))")
        #expect(await over.closed())
        // Over it as its chunks arrive: the rest is dropped, then answered.
        let chunked = try RawHTTPConnection(port: port)
        chunked.send(
            "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1f4\r\n"
                + String(repeating: "b", count: 500) + "\r\n0\r\n\r\n")
        let dropped = await chunked.answer()
        #expect(dropped?.status == 503 && dropped?.headers["retry-after"] == "1", "\(String(describing: dropped))")
        #expect(await chunked.closed())
        #expect(server.bodyBytesInFlight == 800)
        release.set()
        #expect(await holder.answer()?.body == "POST /hold body=800\n")
        #expect(await Poll.until(30, every: 0.01) { server.bodyBytesInFlight == 0 })
        let fits = try RawHTTPConnection(port: port)
        fits.send("POST /fits HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n" + String(repeating: "c", count: 500))
        #expect(await fits.answer()?.body == "POST /fits body=500\n")
        await server.stop()
    }

    @Test func aDeclaredButUnsentBodyReservesNothing() async throws {
        let server = try HTTPServer.start(
            listen: Self.local,
            options: Self.options {
                $0.maxConnections = 40
                $0.maxBodyBytesInFlight = 128 << 20
            },
            bodyLimit: { _, _ in 64 << 20 }, handler: Self.echo)
        let port = server.address.port
        // 32 × 64 MiB declared against a 128 MiB budget, one byte of each sent: only what arrived is counted.
        let declared = try (0..<32).map { _ in try RawHTTPConnection(port: port) }
        for connection in declared {
            connection.send("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 67108864\r\n\r\nx")
        }
        #expect(
            await Poll.until(30, every: 0.01) { server.bodyBytesInFlight == 32 },
            "\(server.bodyBytesInFlight) bytes held")
        let small = try RawHTTPConnection(port: port)
        small.send(
            "POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "s", count: 1000))
        #expect(await small.answer()?.body == "POST /small body=1000\n")
        await server.stop(deadline: .milliseconds(100))
    }

    @Test func aLongPollWhoseClientLeftFreesItsSlot() async throws {
        let entered = Locked(0)
        let cancelled = Locked(0)
        let server = try HTTPServer.start(
            listen: Self.local, options: Self.options { $0.maxConnections = 2 }
        ) { request in
            guard request.path == "/wait" else { return await Self.echo(request) }
            entered.withLock { $0 += 1 }
            let end = ContinuousClock.now + .seconds(600)
            while !Task.isCancelled, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(20)) }
            if Task.isCancelled { cancelled.withLock { $0 += 1 } }
            return HTTPResponse(status: 200, text: "waited\n")
        }
        let port = server.address.port
        var waiting = try (0..<2).map { _ in try RawHTTPConnection(port: port) }
        for connection in waiting { connection.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(await Poll.until(30, every: 0.01) { entered.withLock { $0 } == 2 })
        waiting.removeAll()
        #expect(await Poll.until(30, every: 0.01) { cancelled.withLock { $0 } == 2 }, "the handlers were not cancelled")
        #expect(await Poll.until(30, every: 0.01) { server.openConnections == 0 })
        let next = try RawHTTPConnection(port: port)
        next.send("GET /v1/next HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await next.answer()?.status == 200)
        await server.stop()
    }

    @Test func aWriteWhoseClientLeftIsLetFinishThenItsConnectionCloses() async throws {
        let writing = Flag()
        let release = Flag()
        let outcomes = Locked<[String: Bool]>([:])
        let server = try HTTPServer.start(listen: Self.local, options: Self.options { _ in }) { request in
            if request.method == "POST" {
                writing.set()
                await release.wait()
            } else {
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            }
            outcomes.withLock { $0[request.method] = Task.isCancelled }
            return HTTPResponse(status: 200, text: "done\n")
        }
        let port = server.address.port
        var write: RawHTTPConnection? = try RawHTTPConnection(port: port)
        write?.send("POST /write HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok")
        #expect(await writing.wait())
        var read: RawHTTPConnection? = try RawHTTPConnection(port: port)
        read?.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await Poll.until(30, every: 0.01) { server.openConnections == 2 })
        // Both clients leave, the writer first: once the read's handler is cancelled, the watch has seen both.
        write = nil
        read = nil
        #expect(await Poll.until(30, every: 0.01) { outcomes.withLock { $0["GET"] } == true })
        #expect(outcomes.withLock { $0["POST"] } == nil, "the write's handler ended before it was released")
        release.set()
        #expect(
            await Poll.until(30, every: 0.01) { outcomes.withLock { $0["POST"] } == false },
            "the write's handler was cancelled")
        #expect(await Poll.until(30, every: 0.01) { server.openConnections == 0 })
        await server.stop()
    }

    @Test func aHeadCheckRefusesBeforeTheBodyAndClosesTheConnection() async throws {
        let checked = Locked<[String]>([])
        let server = try HTTPServer.start(
            listen: Self.local, options: Self.options { _ in },
            bodyLimit: { _, _ in 64 << 20 },
            headCheck: { head in
                checked.withLock { $0.append(head.path) }
                return head.headers["Authorization"] == "yes" ? nil : HTTPResponse(status: 401, text: "no\n")
            }, handler: Self.echo)
        let port = server.address.port
        let refused = try RawHTTPConnection(port: port)
        refused.send("POST /refused HTTP/1.1\r\nHost: x\r\nContent-Length: 67108864\r\n\r\n")
        let answer = await refused.answer()
        #expect(answer?.status == 401 && answer?.body == "no\n", "\(String(describing: answer))")
        #expect(await refused.closed())
        #expect(server.bodyBytesInFlight == 0)
        // Accepted: the body is read after the check (curl's 100-continue included).
        let accepted = try RawHTTPConnection(port: port)
        accepted.send(
            "POST /accepted HTTP/1.1\r\nHost: x\r\nAuthorization: yes\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
        )
        #expect(await accepted.answer(interim: true)?.status == 100, "no 100 Continue after the check")
        accepted.send("abc")
        #expect(await accepted.answer()?.body == "POST /accepted body=3\n")
        // A request without a body is not checked here (its handler decides).
        accepted.send("GET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await accepted.answer()?.body == "GET /plain body=0\n")
        #expect(checked.withLock { $0 } == ["/refused", "/accepted"])
        await server.stop()
    }

    @Test func theWatchDecidesOnItsInjectedClock() {
        let limits = ConnectionWatch.Limits(headerTimeout: 1, bodyTimeout: 2)
        let second: UInt64 = 1_000_000_000
        #expect(ConnectionWatch.verdict(.head, since: 5 * second, now: 6 * second, limits: limits) == .fine)
        #expect(ConnectionWatch.verdict(.head, since: 5 * second, now: 6 * second + 1, limits: limits) == .overdue)
        #expect(ConnectionWatch.verdict(.body, since: 5 * second, now: 6 * second + 1, limits: limits) == .fine)
        #expect(ConnectionWatch.verdict(.body, since: 5 * second, now: 7 * second + 1, limits: limits) == .overdue)
        #expect(ConnectionWatch.verdict(.held, since: 0, now: 100 * second, limits: limits) == .fine)
        #expect(ConnectionWatch.verdict(.handling, since: 0, now: 100 * second, limits: limits) == .watchClient)
        // A clock read before the phase began does not count as time spent.
        #expect(ConnectionWatch.verdict(.head, since: 9 * second, now: 5 * second, limits: limits) == .fine)
    }
}
