import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("ChildProcess", .offThePool)
struct ChildProcessTests {
    @Test("feeds standard input while reading output and errors to their ends; exit status, environment, folder")
    func pipesAndExitStatus() throws {
        // A megabyte each way: more than a pipe holds, so feeding and reading must go on at once.
        let text = String(repeating: "0123456789abcdef", count: 65536)
        let cat = try ChildProcess("/bin/sh", ["-c", "cat; echo done >&2"], stdin: .pipe, stdout: .pipe, stderr: .pipe)
        let output = cat.readToEnd(feeding: Data(text.utf8))
        #expect(cat.wait() == .exited(0))
        #expect(String(decoding: output.stdout, as: UTF8.self) == text)
        #expect(String(decoding: output.stderr, as: UTF8.self) == "done\n")
        #expect(!cat.isRunning)

        let shell = try ChildProcess(
            "/bin/sh", ["-c", "echo \"$GREETING\"; pwd; echo oops >&2; exit 3"], environment: ["GREETING": "hi"],
            directory: "/tmp", stdout: .pipe, stderr: .standardOutput)
        #expect(String(decoding: shell.readToEnd().stdout, as: UTF8.self) == "hi\n/tmp\noops\n")
        #expect(shell.wait() == .exited(3))
        #expect(shell.terminationReason == .exit && shell.terminationStatus == 3)
    }

    @Test("starts with no signal blocked or ignored, whatever the starting thread blocks; a signal ends it")
    func signals() async throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let sleeper = try ChildProcess("/bin/sleep", ["60"])
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let status = try String(contentsOfFile: "/proc/\(sleeper.processIdentifier)/status", encoding: .utf8)
        // The standard signals, 1 to 31 (glibc keeps its own real-time ones, 32 and 33, to itself).
        for field in ["SigBlk:", "SigIgn:"] {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
            let bits = line.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) }
            #expect(bits.map { $0 & 0x7fff_ffff } == 0, "\(line)")
        }
        #expect(sleeper.isRunning)
        sleeper.terminate()
        #expect(await sleeper.exit() == .signalled(SIGTERM))
        #expect(sleeper.terminationReason == .uncaughtSignal && sleeper.terminationStatus == SIGTERM)

        let stuck = try ChildProcess("/bin/sleep", ["60"])
        #expect(stuck.wait(timeout: 0.2) == nil)
        #expect(stuck.termination == .signalled(SIGKILL))
    }

    @Test("a child started while another's pipes are open holds none of them: the first still sees its input end")
    func noInheritedDescriptors() async throws {
        // Past the ~1,350 open descriptors at which Foundation's Process.run crashed in Swift 6.3.1.
        let extra = (0..<1_500).map { _ in dup(0) }
        defer { for descriptor in extra where descriptor >= 0 { close(descriptor) } }
        let first = try ChildProcess("/bin/cat", [], stdin: .pipe, stdout: .pipe)
        let second = try ChildProcess("/bin/sleep", ["60"])
        defer { second.stop() }
        // While the dynamic loader maps sleep's libraries and locale, it briefly holds a descriptor 3 of its own; an
        // inherited pipe would stay.
        let directory = "/proc/\(second.processIdentifier)/fd"
        var descriptors: [String] = []
        let settled = await Poll.until(60) {
            descriptors = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
            return descriptors == ["0", "1", "2"]
        }
        #expect(settled, "the second child holds \(descriptors)")
        try first.write(Data("hello".utf8))
        first.closeInput()
        #expect(String(decoding: first.readToEnd().stdout, as: UTF8.self) == "hello")
        #expect(first.wait() == .exited(0))
    }
}
