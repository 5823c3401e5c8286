import CLITestSupport
import Foundation
import TestSupport
import Testing

extension WorkerFleet {
    /// The database refuses writes mid-campaign: the worker pauses, keeps its outcomes, writes them once it
    /// can, and nothing is sent twice.
    @Suite struct StorageFaultTests {
        static let devices = 3000

        @Test func anotherProcessHoldsTheWriteLockForTenSeconds() async throws {
            let fleet = try await Fleet(devices: Self.devices, rate: 300)
            defer { fleet.stop() }
            let worker = try fleet.startWorker()
            defer { worker.killIfRunning() }
            #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 300 }, "\(worker.log.suffix(2000))")

            let shell = try SQLiteShell(database: fleet.cli.database)
            defer { shell.end() }
            try shell.send(".timeout 5000\nBEGIN IMMEDIATE;\nUPDATE workers SET pid = pid;\nSELECT 'locked';\n")
            try #require(
                shell.waitForOutput("locked", seconds: 10), "the shell did not get the write lock: \(shell.output)")
            let lockedAt = Date()

            // The worker waits out its busy timeout (5 s), then pauses sending; the outcomes it holds stay in memory.
            #expect(
                await Fleet.eventually(9) { !worker.events("worker.storage_fault").isEmpty },
                "\(worker.log.suffix(2000))")
            try await Task.sleep(for: .seconds(0.3))
            let requestsWhilePaused = fleet.server.stats().totals.requests
            try await Task.sleep(for: .seconds(max(0, 10 - Date().timeIntervalSince(lockedAt))))
            #expect(
                worker.process.isRunning, "the worker must not exit on a locked database: \(worker.log.suffix(2000))")
            #expect(
                fleet.server.stats().totals.requests == requestsWhilePaused,
                "nothing is sent while the database refuses writes")
            #expect(fleet.accepted < Self.devices, "the lock came too late to test anything")
            try shell.send("COMMIT;\n")
            shell.end()
            #expect(shell.exitStatus == 0, "the shell's transaction: \(shell.output)")

            #expect(
                await Fleet.eventually(15) { !worker.events("worker.storage_recovered").isEmpty },
                "\(worker.log.suffix(2000))"
            )
            let fault = worker.events("worker.storage_fault")
            #expect(fault.count == 1 && (fault.first?["error"] as? String ?? "").contains("locked"), "\(fault)")
            #expect(
                try await Fleet.eventually(30, every: 0.3) {
                    try await fleet.log("--status", "accepted").count == Self.devices
                },
                "the worker should finish the campaign; log:\n\(worker.log.suffix(2000))")
            let took = worker.terminate(within: 10)
            #expect(took != nil && worker.process.terminationStatus == 0, "\(worker.log.suffix(2000))")
            try await fleet.expectAllAcceptedOnce()
            #expect(fleet.server.stats().totals.tokensAcceptedTwice == 0)
            #expect(fleet.server.stats().totals.requests == Self.devices)
        }

        /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN): tried once on a scratch folder.
        static let canMountTmpfs: Bool = {
            let probe = FileManager.default.temporaryDirectory.appendingPathComponent(
                "apnsd-tmpfs-probe-\(UUID().uuidString)")
            guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else {
                return false
            }
            defer { try? FileManager.default.removeItem(at: probe) }
            guard (try? shell("/bin/mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe.path))?.status == 0 else {
                return false
            }
            _ = try? shell("/bin/umount", probe.path)
            return true
        }()

        @Test(
            .enabled(
                if: canMountTmpfs, "skipped: mounting a small tmpfs for the database needs root with CAP_SYS_ADMIN"))
        func theDiskFillsMidCampaign() async throws {
            let disk = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-tmpfs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: disk) }
            let mounted = try Self.shell("/bin/mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", disk.path)
            try #require(mounted.status == 0, "mount -t tmpfs: \(mounted.output)")
            defer {
                if (try? Self.shell("/bin/umount", disk.path))?.status != 0 {
                    _ = try? Self.shell("/bin/umount", "-l", disk.path)
                }
            }
            let fleet = try await Fleet(
                devices: Self.devices, rate: 300, database: disk.appendingPathComponent("apnsd.sqlite").path)
            defer { fleet.stop() }
            let worker = try fleet.startWorker()
            defer { worker.killIfRunning() }
            #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 300 }, "\(worker.log.suffix(2000))")

            let filler = disk.appendingPathComponent("filler")
            let written = Self.fill(filler.path)
            #expect(written > 0, "the filler should take the free space")
            #expect(
                await Fleet.eventually(5) { !worker.events("worker.storage_fault").isEmpty },
                "the worker should notice the full disk; log:\n\(worker.log.suffix(2000))")
            // Sending pauses: once what was handed to the connection (a second of the rate) is answered, nothing more.
            try await Task.sleep(for: .seconds(2))
            let requestsWhilePaused = fleet.server.stats().totals.requests
            try await Task.sleep(for: .seconds(1))
            #expect(
                fleet.server.stats().totals.requests == requestsWhilePaused, "nothing is sent while the disk is full")
            #expect(worker.process.isRunning, "the worker must not exit on a full disk: \(worker.log.suffix(2000))")
            #expect(fleet.accepted < Self.devices, "the disk filled too late to test anything")
            try FileManager.default.removeItem(at: filler)

            #expect(
                await Fleet.eventually(15) { !worker.events("worker.storage_recovered").isEmpty },
                "\(worker.log.suffix(2000))"
            )
            let fault = worker.events("worker.storage_fault")
            #expect(fault.count >= 1 && (fault.first?["error"] as? String ?? "").contains("full"), "\(fault)")
            #expect(
                try await Fleet.eventually(30, every: 0.3) {
                    try await fleet.log("--status", "accepted").count == Self.devices
                },
                "the worker should finish the campaign; log:\n\(worker.log.suffix(2000))")
            let took = worker.terminate(within: 10)
            #expect(took != nil && worker.process.terminationStatus == 0, "\(worker.log.suffix(2000))")
            try await fleet.expectAllAcceptedOnce()
            #expect(fleet.server.stats().totals.tokensAcceptedTwice == 0)
            #expect(fleet.server.stats().totals.requests == Self.devices)
            print("disk full: filler took \(written / 1024) KiB; \(fault.count) storage_fault line(s)")
        }

        /// Writes zeros to `path` until the filesystem is full; returns the bytes written.
        static func fill(_ path: String) -> Int {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { return 0 }
            defer { close(fd) }
            let chunk = [UInt8](repeating: 0, count: 64 * 1024)
            var total = 0
            var size = chunk.count
            while size > 0 {
                let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress, size) }
                if n > 0 {
                    total += n
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                size /= 2  // ENOSPC: take the last pages with smaller writes
            }
            return total
        }

        static func shell(_ executable: String, _ arguments: String...) throws -> (status: Int32, output: String) {
            let process = try ChildProcess(executable, arguments, stdout: .pipe, stderr: .standardOutput)
            let data = process.readToEnd().stdout
            process.wait()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }
}

/// A `sqlite3` shell on the database, fed statements through a pipe, as an operator at the prompt.
final class SQLiteShell {
    private let process: ChildProcess
    private let outputFile: URL

    init(database: String) throws {
        outputFile = URL(fileURLWithPath: database + ".shell-\(UUID().uuidString).out")
        process = try ChildProcess(
            "/usr/bin/sqlite3", ["-bail", database], stdin: .pipe, stdout: .file(outputFile.path),
            stderr: .standardOutput)
    }

    func send(_ text: String) throws { try process.write(Data(text.utf8)) }

    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    func waitForOutput(_ text: String, seconds: Double) -> Bool {
        Fleet.waitUntil(seconds, every: 0.02) { output.contains(text) }
    }

    /// Ends the input (the shell exits) and waits for it.
    func end() {
        process.closeInput()
        process.wait()
    }

    var exitStatus: Int32 { process.terminationStatus }
}
