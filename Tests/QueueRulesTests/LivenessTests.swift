import QueueModel
import QueueRules
import Testing

/// Whether another worker is alive, from its row and what this host sees of its pid (milliseconds).
@Suite struct LivenessTests {
    static let ours = ProcessIdentity(host: "a", pid: 10, bootID: "boot-1", pidNamespace: 4_026_531_836, startTime: 77)
    static let liveness = Liveness(ours: ours, heartbeat: .seconds(5), lease: .seconds(30))

    static func worker(host: String = "a", boot: String? = "boot-1", namespace: Int64? = 4_026_531_836)
        -> ProcessIdentity
    {
        ProcessIdentity(host: host, pid: 20, bootID: boot, pidNamespace: namespace, startTime: 500)
    }

    @Test func onThisBootAndPidNamespaceAGonePidOrAnotherProcessIsDeadAtOnce() {
        let now: Int64 = 1_000_000
        // However fresh its heartbeat.
        #expect(Self.liveness.verdict(Self.worker(), heartbeat: now, process: .gone, now: now) == .dead)
        #expect(
            Self.liveness.verdict(Self.worker(), heartbeat: now, process: .running(startTime: 501), now: now) == .dead)
        #expect(
            Self.liveness.verdict(Self.worker(), heartbeat: now, process: .running(startTime: 500), now: now) == .alive)
        // A start time that could not be read, on either side, tells nothing.
        #expect(
            Self.liveness.verdict(Self.worker(), heartbeat: now, process: .running(startTime: nil), now: now) == .alive)
        var unknown = Self.worker()
        unknown.startTime = nil
        #expect(Self.liveness.verdict(unknown, heartbeat: now, process: .running(startTime: 501), now: now) == .alive)
    }

    @Test func elsewhereAWorkerIsJudgedByItsHeartbeat() {
        let now: Int64 = 1_000_000
        let others = [
            Self.worker(host: "b", boot: "boot-2"), Self.worker(namespace: 1), Self.worker(boot: nil),
            Self.worker(namespace: nil),
        ]
        for other in others {
            #expect(!Self.liveness.canSee(other))
            #expect(Self.liveness.verdict(other, heartbeat: now - 10_000, process: .gone, now: now) == .alive)
            // Silent for more than two heartbeats: taken over when its lease runs out, not before.
            #expect(
                Self.liveness.verdict(other, heartbeat: now - 10_001, process: .gone, now: now)
                    == .silent(takeOverAt: now - 10_001 + 30_001))
        }
        // Without a boot id of its own, this process sees no other's pid.
        var blind = Self.liveness
        blind.ours.bootID = nil
        #expect(!blind.canSee(Self.worker()))
        #expect(Self.liveness.verdict(Self.worker(), heartbeat: now, process: nil, now: now) == .alive)
    }
}
