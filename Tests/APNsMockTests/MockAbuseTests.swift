import APNsMock
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Clients that misbehave on purpose, against the real `apns-mock` process: its memory and CPU stay bounded and a
/// normal client (curl, a fresh connection each time) is served throughout. Limits are generous — the machine is
/// shared — but each attack, unbounded, goes far past them. Each test prints what it measured.
@Suite("Mock: abusive clients", .offThePool)
struct MockAbuseTests {
    private func report(_ line: String) { print("apns-mock abuse: \(line)") }

    /// Sends a PING and waits for its ACK: the server has then read everything sent before it.
    private func roundTrip(_ connection: RawH2, seed: UInt64) throws {
        try connection.send(H2Frame.ping(seed).bytes)
        let ack = connection.frame(timeout: 20) {
            $0.type == H2Frame.ping && $0.flags & H2Frame.ack != 0 && $0.payload == H2Frame.ping(seed).payload
        }
        try #require(ack != nil, "no PING ACK (connection closed: \(connection.closed))")
    }

    @Test(
        "20 connections × 900 half-open streams, three times over: what the streams held is freed with each connection",
        .boundsResources)
    func halfOpenStreams() throws {
        let mock = try SpawnedMock()
        defer { mock.stop() }
        #expect(try mock.push() == 200)
        let base = mock.residentBytes
        // 4,000 bytes: under the simulator's authorization limit and small enough for the HPACK table, so every
        // stream costs the client one byte to name it and the server a 4 KB header to take in.
        let authorization = "bearer " + String(repeating: "A", count: 3993)
        var peak = base
        var after: [Int] = []
        for round in 0..<3 {
            var connections: [RawH2] = []
            for _ in 0..<20 {
                let connection = try RawH2(port: mock.port)
                var bytes: [UInt8] = []
                for index in 0..<900 {
                    let block = connection.encoder.block(
                        RawH2.push(token: Fixture.token("ab"), authorization: authorization), index: true)
                    bytes += H2Frame.headers(stream: UInt32(1 + 2 * index), block: block, endStream: false)
                }
                try connection.send(bytes)
                connections.append(connection)
            }
            for (index, connection) in connections.enumerated() { try roundTrip(connection, seed: UInt64(index)) }
            peak = max(peak, mock.residentBytes)
            connections.removeAll()  // closes all 20 with their streams open
            Thread.sleep(forTimeInterval: 0.5)
            after.append(mock.residentBytes)
            #expect(try mock.push() == 200, "a normal client after round \(round + 1)")
        }
        report(
            "half-open streams: RSS \(megabytes(base)) at start, peak \(megabytes(peak)), after each round \(after.map(megabytes))"
        )
        // Unfreed, each round keeps 18,000 streams' state (about 80 MB with these headers).
        #expect(after[2] - after[0] < 16_000_000, "RSS grew round after round: \(after.map(megabytes))")
        #expect(peak - base < 150_000_000, "peak \(megabytes(peak)) from \(megabytes(base))")
    }

    @Test("2 connections pipeline requests and never read: the simulator stops reading them", .boundsResources)
    func neverReads() throws {
        let mock = try SpawnedMock()
        defer { mock.stop() }
        #expect(try mock.push() == 200)
        let base = mock.residentBytes
        var peak = base
        // Each request is a HEADERS frame of one-byte indexes with END_STREAM: no body, so no flow control holds it
        // back; each answer (400 PayloadEmpty with its JSON body, which the large windows let through) is 5 times its
        // size.
        // Small receive buffers: what the simulator writes stays in its own memory rather than the kernel's.
        let connections = try (0..<2).map { _ in
            try RawH2(port: mock.port, settings: [(0x4, 1 << 30)], receiveBuffer: 1 << 16)
        }
        let fields = RawH2.push(token: Fixture.token("ee"), authorization: mock.authorization)
        var blocks: [[UInt8]] = []
        for connection in connections {
            try connection.send(
                H2Frame(type: H2Frame.windowUpdate, flags: 0, stream: 0, payload: [0x3f, 0xff, 0, 0]).bytes
                    + H2Frame.headers(stream: 1, block: connection.encoder.block(fields, index: true), endStream: true))
            blocks.append(connection.encoder.block(fields, index: true))  // every field indexed from now on
        }
        // Batches of 4,096 requests, made once per connection: only the stream ids change.
        var batches = blocks.map { block in
            (0..<4096).reduce(into: [UInt8]()) { bytes, _ in
                bytes += H2Frame.headers(stream: 1, block: block, endStream: true)
            }
        }
        let frameSize = batches[0].count / 4096
        var offsets = [Int](repeating: batches[0].count, count: connections.count)
        var nextStream = [UInt32](repeating: 3, count: connections.count)
        func attack(seconds: TimeInterval) {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                var progress = false
                for (index, connection) in connections.enumerated() {
                    if offsets[index] >= batches[index].count {
                        for frame in 0..<4096 {
                            let id = nextStream[index]
                            let at = frame * frameSize + 5
                            batches[index][at] = UInt8(id >> 24 & 0x7f)
                            batches[index][at + 1] = UInt8(id >> 16 & 0xff)
                            batches[index][at + 2] = UInt8(id >> 8 & 0xff)
                            batches[index][at + 3] = UInt8(id & 0xff)
                            nextStream[index] += 2
                        }
                        offsets[index] = 0
                    }
                    let n = connection.trySend(batches[index], from: offsets[index])
                    if n > 0 {
                        offsets[index] += n
                        progress = true
                    }
                }
                peak = max(peak, mock.residentBytes)
                if !progress { Thread.sleep(forTimeInterval: 0.001) }
            }
        }
        // A normal client while the simulator is busiest (the attackers wait while it runs).
        attack(seconds: 1)
        let servedDuring = try mock.push() == 200
        // Then the simulator should soon stop: its answers fill the kernel's socket buffers, then its own 256 KiB
        // per connection, and it reads no more, though the attackers keep pushing. Unbounded, it never stops. Its
        // answer count says so (each look is one stats request); its CPU time would not on a loaded machine.
        let start = Date()
        var seen = try mock.stats().totals.requests
        var quietSince: Date?
        while Date().timeIntervalSince(start) < 30 {
            attack(seconds: 0.5)
            let now = try mock.stats().totals.requests
            if now - seen <= 1 {
                if quietSince == nil { quietSince = Date() }
                if Date().timeIntervalSince(quietSince!) >= 1 { break }
            } else {
                quietSince = nil
            }
            seen = now
        }
        let stopped = quietSince.map { Date().timeIntervalSince($0) >= 1 } ?? false
        let answered = try mock.stats().totals.requests
        attack(seconds: 1)
        let answeredLater = try mock.stats().totals.requests
        let written = connections.map(\.written).reduce(0, +)
        report(
            "never-reading clients: wrote \(megabytes(written)); the simulator \(stopped ? "stopped reading after \(String(format: "%.1f", quietSince!.timeIntervalSince(start) + 1)) s" : "never stopped reading") having answered \(answered) (\(answeredLater - answered) more in the next second); RSS \(megabytes(base)) → peak \(megabytes(peak)), CPU \(String(format: "%.1f", mock.cpuSeconds)) s"
        )
        #expect(servedDuring, "a normal client was not served during the attack")
        #expect(stopped, "the simulator kept reading clients that never read")
        // At most the two stats requests were answered since.
        #expect(answeredLater - answered <= 2, "still answering: \(answeredLater - answered)")
        #expect(peak - base < 30_000_000, "RSS \(megabytes(base)) → \(megabytes(peak))")
        #expect(try mock.push() == 200)
    }

    @Test(
        "5,000 distinct 16 KB and 4 KB authorization headers on one connection: the verdict cache stays small",
        .boundsResources)
    func manyAuthorizations() throws {
        let mock = try SpawnedMock()
        defer { mock.stop() }
        #expect(try mock.push() == 200)
        let base = mock.residentBytes
        var peak = base
        let connection = try RawH2(port: mock.port, settings: [(0x4, 1 << 30)])  // a large window: answers never wait
        try connection.send(
            H2Frame(type: H2Frame.windowUpdate, flags: 0, stream: 0, payload: [0x3f, 0xff, 0, 0]).bytes)
        var answered = 0
        var refused = 0
        var accepted = 0
        var stream: UInt32 = 1
        for batch in 0..<100 {
            var bytes: [UInt8] = []
            for index in 0..<50 {
                let size = batch % 2 == 0 ? 16_000 : 4_000
                let serial = String(batch * 50 + index)
                let authorization = "bearer " + serial + String(repeating: "x", count: size - serial.count)
                bytes += connection.pushFrames(
                    stream: stream, token: Fixture.token("cd"), authorization: authorization, index: false)
                stream += 2
            }
            try connection.send(bytes)
            while let frame = connection.frame(
                timeout: 0.002, where: { $0.type == H2Frame.headers || $0.type == H2Frame.rstStream })
            {
                if frame.type == H2Frame.rstStream { refused += 1 } else { answered += 1 }
                if frame.isStatus200 { accepted += 1 }
            }
            if batch % 10 == 0 { peak = max(peak, mock.residentBytes) }
        }
        while answered + refused < 5000,
            let frame = connection.frame(
                timeout: 20, where: { $0.type == H2Frame.headers || $0.type == H2Frame.rstStream })
        {
            if frame.type == H2Frame.rstStream { refused += 1 } else { answered += 1 }
            if frame.isStatus200 { accepted += 1 }
        }
        peak = max(peak, mock.residentBytes)
        report(
            "5,000 distinct authorizations: RSS \(megabytes(base)) → peak \(megabytes(peak)); \(answered) answered, \(refused) refused, \(accepted) accepted"
        )
        #expect(answered == 5000)
        #expect(accepted == 0)
        // Unbounded, the cache keeps every header: 50 MB of 16 KB ones alone.
        #expect(peak - base < 20_000_000, "RSS \(megabytes(base)) → \(megabytes(peak))")
        #expect(try mock.push() == 200)
    }

    @Test(
        "streams opened and reset before they complete: GOAWAY ENHANCE_YOUR_CALM once past the allowance",
        .boundsResources)
    func rapidReset() throws {
        let mock = try SpawnedMock()
        defer { mock.stop() }
        let connection = try RawH2(port: mock.port)
        var stream: UInt32 = 1
        var goaway: H2Frame?
        var sent = 0
        let start = Date()
        while goaway == nil && !connection.closed && sent < 20_000 && Date().timeIntervalSince(start) < 15 {
            var bytes: [UInt8] = []
            for _ in 0..<100 {
                let block = connection.encoder.block(
                    RawH2.push(token: Fixture.token("fa"), authorization: mock.authorization), index: true)
                bytes += H2Frame.headers(stream: stream, block: block, endStream: false)
                bytes += H2Frame.rst(stream: stream).bytes
                stream += 2
            }
            guard (try? connection.send(bytes, timeout: 5)) != nil else { break }
            sent += 100
            while let frame = connection.frame(timeout: 0.001, where: { $0.type == H2Frame.goaway }) { goaway = frame }
        }
        if goaway == nil { goaway = connection.frame(timeout: 5) { $0.type == H2Frame.goaway } }
        report(
            "rapid reset: \(sent) streams opened and reset in \(String(format: "%.1f", Date().timeIntervalSince(start))) s; GOAWAY \(goaway.map { "code \($0.errorCode ?? 0)" } ?? "none")"
        )
        #expect(goaway?.errorCode == H2Frame.enhanceYourCalm)
        // Counted where the cut is made: the streams the simulator had processed when it sent GOAWAY (on a loaded
        // machine the client writes many more before it reads the GOAWAY).
        let processed = goaway?.lastStreamID.map { Int($0 + 1) / 2 } ?? sent
        #expect(processed < 5000, "the cut came late: after \(processed) streams (\(sent) sent)")
        #expect(connection.framesUntilClosed(timeout: 10) != nil, "the connection stayed open")
        #expect(try mock.push() == 200)
    }

    @Test(
        "out of file descriptors: the accept loop backs off, an open connection keeps being served, then new ones are",
        .boundsResources)
    func outOfFileDescriptors() throws {
        let mock = try SpawnedMock(["--handshake-timeout", "4"], fileLimit: 64)
        defer { mock.stop() }
        // A normal client connected before the flood, with one answered push.
        let normal = try RawH2(port: mock.port)
        try normal.send(normal.pushFrames(stream: 1, token: Fixture.token("0a"), authorization: mock.authorization))
        #expect(normal.frame { $0.type == H2Frame.headers }?.isStatus200 == true)
        // 80 connections that never start TLS: the simulator runs out of descriptors and the rest wait in the backlog.
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for _ in 0..<80 { idle.append(try LoopbackSocket.connect(port: mock.port)) }
        Thread.sleep(forTimeInterval: 0.3)
        let cpuBefore = mock.cpuSeconds
        let window = Date()
        Thread.sleep(forTimeInterval: 1.5)
        try normal.send(normal.pushFrames(stream: 3, token: Fixture.token("0a"), authorization: mock.authorization))
        let served = normal.frame(timeout: 5) { $0.type == H2Frame.headers }?.isStatus200 == true
        let cpu = mock.cpuSeconds - cpuBefore
        let seconds = Date().timeIntervalSince(window)
        // The handshake timeout frees the descriptors; then a new client gets in.
        let started = Date()
        let status = try mock.push()
        report(
            "80 idle connections under ulimit -n 64: \(String(format: "%.2f", cpu)) s CPU in \(String(format: "%.1f", seconds)) s; open connection served: \(served); a new client got \(status) after \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
        )
        #expect(served)
        // Spinning on accept takes a whole core when it can get one (a fifth of one on a loaded machine, at nice 10).
        #expect(cpu < 0.1 * seconds, "\(cpu) s CPU in \(seconds) s")
        #expect(status == 200)
    }
}
