import CLITestSupport
import Foundation
import TestSupport
import Testing
import Threads

extension WorkerFleet {
    /// `apnsd serve` under hostile or heavy clients: a stalled client and a 1 GiB upload that do not
    /// stall anyone else (nor grow the server's memory), and SIGTERM under load losing no acknowledged enqueue.
    @Suite struct APIRobustnessTests {

        @Test(.measuresTime) func aStalledClientAndAGigabyteBodyDoNotStallOthers() async throws {
            let cli = try CLI()
            defer { cli.cleanUp() }
            let api = try await APIHarness(cli: cli)
            defer { api.stop() }
            let port = try #require(Int(api.base.split(separator: ":").last ?? ""))
            let baseline = try #require(Self.residentKiB(api.serve.pid))

            // Headers and half a body, then nothing.
            let stalled = try RawConnection(port: port)
            defer { stalled.close() }
            let body = APIHarness.notification(Tokens.hex(1))
            stalled.send(
                Array(
                    "POST /v1/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(api.backend)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body.prefix(20))"
                        .utf8))

            // 1 GiB of spaces to a route whose limit is 64 MiB, each on a thread of its own: once announced by
            // Content-Length (refused from the headers), once chunked (the server learns the size only by reading).
            let (pid, adminKey) = (api.serve.pid, api.admin)
            let announced = try Upload(port: port, key: adminKey, chunked: false)
            let chunked = try Upload(port: port, key: adminKey, chunked: true)
            defer {
                announced.connection.close()
                chunked.connection.close()
            }
            #expect(await Fleet.eventually(30, every: 0.01) { chunked.sent != 0 }, "the chunked upload did not start")
            let peak = Locked(baseline)
            let sampling = Locked(true)
            let sampler = Thread {
                while sampling.withLock({ $0 }) {
                    if let now = Self.residentKiB(pid) { peak.withLock { $0 = max($0, now) } }
                    usleep(20_000)
                }
            }
            sampler.start()

            // Twenty ordinary requests succeed meanwhile.
            var statuses: [Int] = []
            for i in 0..<20 {
                let response =
                    await i % 2 == 0
                    ? HTTPClient.request(
                        "POST", api.base + "/v1/notifications",
                        headers: ["Authorization: Bearer \(api.backend)", "Content-Type: application/json"],
                        body: APIHarness.notification(Tokens.hex(100 + i)))
                    : await HTTPClient.request(
                        "GET", api.base + "/v1/deliveries?limit=5", headers: ["Authorization: Bearer \(api.reader)"])
                statuses.append(response?.status ?? 0)
            }
            #expect(
                statuses == (0..<20).map { $0 % 2 == 0 ? 202 : 200 }, "\(statuses); log: \(api.serve.log.suffix(1500))")
            // The stalled request was kept waiting, not dropped: its remaining bytes complete it.
            stalled.send(Array(body.dropFirst(20).utf8))
            let completed = stalled.receive(timeout: 30, until: #""deliveries":1}"#)
            #expect(completed.hasPrefix("HTTP/1.1 202"), "the stalled request, completed: \(completed.prefix(200))")
            for upload in [announced, chunked] {
                #expect(
                    await Fleet.eventually(120, every: 0.1) { upload.sent < 0 },
                    "the upload neither finished nor was cut off")
                let answer = upload.connection.receive(timeout: 30)
                #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 413"), "the 1 GiB body got: \(answer.prefix(200))")
                #expect(-1 - upload.sent < Upload.gigabyte, "the server read the whole gigabyte")
            }
            sampling.withLock { $0 = false }
            let peakKiB = peak.withLock { $0 }
            #expect(peakKiB < 300 * 1024, "resident memory grew from \(baseline) KiB to \(peakKiB) KiB")
            #expect(try api.call("GET", "/healthz", key: nil).status == 200)
            let nothing = try api.written()
            #expect(
                nothing.first?.hasPrefix("11|11|") == true,
                "only the ten ordinary and the stalled notification were written: \(nothing)")
        }

        @Test func sigtermUnderLoadLosesNoAcknowledgedEnqueue() async throws {
            let cli = try CLI()
            defer { cli.cleanUp() }
            let api = try await APIHarness(cli: cli)
            defer { api.stop() }
            let acknowledged = Locked([String]())
            let refusedAfterStop = Locked(false)
            let group = DispatchGroup()
            let (base, secret) = (api.base, api.backend)
            for client in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    // Until the server stops answering (curl then gets no response at all).
                    for i in 0..<1000 {
                        let response = HTTPClient.request(
                            "POST", base + "/v1/notifications",
                            headers: [
                                "Authorization: Bearer \(secret)", "Content-Type: application/json",
                            ], body: APIHarness.notification(Tokens.hex(client * 1000 + i)))
                        guard let response else {
                            refusedAfterStop.withLock { $0 = true }
                            return
                        }
                        if response.status == 202,
                            let id =
                                (try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])?[
                                    "id"] as? String
                        {
                            acknowledged.withLock { $0.append(id) }
                        }
                    }
                }
            }
            #expect(
                await Fleet.eventually(60, every: 0.02) { acknowledged.withLock { $0.count } >= 40 },
                "load did not get going")
            kill(api.serve.pid, SIGTERM)
            #expect(api.serve.waitForExit(30), "no exit on SIGTERM; log: \(api.serve.log.suffix(2000))")
            group.wait()
            api.serve.process.waitUntilExit()
            #expect(
                api.serve.process.terminationReason == .exit && api.serve.process.terminationStatus == 0,
                "\(api.serve.log.suffix(2000))")
            #expect(refusedAfterStop.withLock { $0 }, "the clients ran until the server stopped")

            let ids = acknowledged.withLock { $0 }
            let stored = Set(try SQLiteQuery.query(cli.database, "SELECT id FROM campaigns"))
            let lost = ids.filter { !stored.contains($0) }
            #expect(
                lost.isEmpty,
                "\(lost.count) of \(ids.count) acknowledged notifications are not in the database: \(lost.prefix(5))")
            #expect(Set(ids).count == ids.count)
            let log = try await cli.run("log", "--json")
            #expect(log.status == 0 && log.lines.count >= ids.count, "a delivery row for each")
        }

        /// VmRSS of a process, in KiB.
        static func residentKiB(_ pid: Int32) -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
            else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
    }
}

/// A 1 GiB request body streamed on a thread of its own; `sent` counts the bytes written, and is `-1 - total`
/// once the upload ended (finished, or cut off by the server).
final class Upload: Sendable {
    static let gigabyte = 1 << 30
    let connection: RawConnection
    private let progress = Locked(0)

    var sent: Int { progress.withLock { $0 } }

    init(port: Int, key: String, chunked: Bool) throws {
        connection = try RawConnection(port: port)
        let connection = connection
        let progress = progress
        Thread {
            let framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(Self.gigabyte)"
            _ = connection.send(
                Array(
                    "POST /v1/campaigns HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\n\(framing)\r\n\r\n"
                        .utf8))
            let spaces = [UInt8](repeating: 0x20, count: 1 << 16)
            let block = chunked ? Array("10000\r\n".utf8) + spaces + Array("\r\n".utf8) : spaces
            var total = 0
            while total < Self.gigabyte, connection.send(block) {
                total += spaces.count
                progress.withLock { $0 = total }
            }
            if chunked && total >= Self.gigabyte { connection.send(Array("0\r\n\r\n".utf8)) }
            progress.withLock { $0 = -1 - total }
        }.start()
    }
}

/// A plain TCP connection to 127.0.0.1, for clients curl cannot play (one that stalls mid-body).
final class RawConnection: @unchecked Sendable {
    private let fd: Int32

    init(port: Int) throws {
        fd = try LoopbackSocket.connect(port: port)
        // A send the server never drains fails after a while instead of blocking the test forever.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`; false when the connection refused them (closed, reset, timed out).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// What the server sent until it closed, `timeout` seconds passed without data, or the text received contains
    /// `until` (for a response on a connection kept alive).
    func receive(timeout seconds: Int, until end: String? = nil) -> String {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
            if let end, String(decoding: received, as: UTF8.self).contains(end) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() { Glibc.close(fd) }
}
