import Foundation
import QueueModel
import QueueRules
import Testing

@testable import Dispatcher

/// What `/proc` tells of this process and of another pid.
@Suite struct ProcessIdentityTests {
    @Test func thisProcessIsReadOnceWithItsBootPidNamespaceAndStartTime() throws {
        let current = ProcessIdentity.current
        #expect(current.pid == Int(getpid()) && !current.host.isEmpty)
        #expect(current.bootID?.count == 36, "a UUID: \(current.bootID ?? "nil")")
        #expect((current.pidNamespace ?? 0) > 0)
        let started = try #require(current.startTime)
        #expect(ProcessState.probe(Int(getpid())) == .running(startTime: started))
    }

    @Test func aPidNobodyHasIsGoneAndAPidThatMeansNothingTellsNothing() {
        #expect(ProcessState.probe(Int(Int32.max)) == .gone, "above any pid_max")
        #expect(ProcessState.probe(0) == nil && ProcessState.probe(-1) == nil)
    }

    @Test func theStatLineIsReadAfterTheCommandsLastParenthesis() throws {
        let fields = (3...52).map { $0 == 22 ? "987654" : "7" }
        let line = "4242 (a (b) c) " + (["Z"] + fields.dropFirst()).joined(separator: " ") + "\n"
        let stat = try #require(ProcState.parse(line))
        #expect(stat.startTime == 987_654 && stat.exited)
        #expect(ProcState.parse("4242 (short) S 1 2") == nil)
    }
}
