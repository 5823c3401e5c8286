import Foundation

extension RetentionStore {
    /// Removes finished deliveries last changed before `deliveriesBefore` and devices deactivated (or active and not
    /// registered again) before `devicesBefore`, `batch` ids per transaction, then gives free pages back in steps.
    ///
    /// Between two transactions it waits at least `pause`, and at least twice as long as the last transaction
    /// took, so a worker waiting for the write lock (it tries again within 2 ms) always gets it between two
    /// steps: the prune takes at most about a third of the file's write time (and of a core), in pieces of a few
    /// milliseconds. With half (and the prune not niced) a throttled campaign kept only 89–93% of its cap on a busy
    /// 2-core machine (BENCHMARKS.md, section 10).
    public func prune(
        deliveriesBefore: Date, devicesBefore: Date, dryRun: Bool, batch: Int = 5_000,
        pause: Duration = .milliseconds(5)
    ) async throws(StoreError) -> PruneReport {
        var report = PruneReport(dryRun: dryRun, deliveriesBefore: deliveriesBefore, devicesBefore: devicesBefore)
        let clock = ContinuousClock()
        var cursor: Int64? = 0
        while let after = cursor {
            let start = clock.now
            let step = try await pruneDeliveries(before: deliveriesBefore, after: after, limit: batch, dryRun: dryRun)
            report.deliveries += step.removed
            report.steps += 1
            cursor = step.next
            if cursor != nil { await Self.rest(since: start, clock: clock, pause: pause) }
        }
        cursor = 0
        while let after = cursor {
            let start = clock.now
            let step = try await pruneDevices(
                deactivatedBefore: devicesBefore, registeredBefore: devicesBefore, after: after,
                limit: batch, dryRun: dryRun)
            report.devices += step.removed
            report.inactiveDevices += step.inactive
            report.steps += 1
            cursor = step.next
            if cursor != nil { await Self.rest(since: start, clock: clock, pause: pause) }
        }
        if !dryRun {
            // 1,000 pages (4 MiB at 4 KiB) per transaction: each moves up to that many pages from the file's end
            // into free slots, so the step's length (and the worker's wait) grows with it.
            while try await freeSpace().incremental {
                let start = clock.now
                let reclaimed = try await reclaimFreePages(upTo: 1_000)
                report.pagesReclaimed += reclaimed
                if reclaimed == 0 { break }
                report.steps += 1
                await Self.rest(since: start, clock: clock, pause: pause)
            }
        }
        report.space = try await freeSpace()
        return report
    }

    private static func rest(since start: ContinuousClock.Instant, clock: ContinuousClock, pause: Duration) async {
        try? await Task.sleep(for: max(pause, (clock.now - start) * 2))
    }
}
