import Foundation
import QueueModel

/// When the worker claims: a refill when its queue runs low and a claim is due, at once when something was
/// committed (in this process, on the store's commit signal; from another, on its change count, read at most once a
/// tick, so a busy worker does not queue behind it on the store), and single sends ahead of bulk work while busy.
extension WorkerStateMachine {
    /// What to claim at `now`; `commits` is the store's commit signal as it reads now.
    mutating func lookForWork(now: Date, commits: UInt64) -> [Action] {
        guard fault == nil && !stopping else { return [] }
        if now < nextClaimAt && queued + heldCount == 0 {
            if commits != commitsSeen {
                nextClaimAt = now
            } else if now >= nextChangeCheck, changesSeen != nil {
                nextChangeCheck = now.addingTimeInterval(Self.tick)
                return [.readChangeCount(.idle), .then(.claim)]
            }
        }
        if now >= nextClaimAt && queued + heldCount < max(1, configuration.claimBatch / 2) {
            return claimIfDue(now: now)
        }
        guard queued > 0 else { return [] }
        singlesMoved = commits != singlesCommitsSeen
        if !singlesMoved && now >= nextSinglesCheck {
            nextSinglesCheck = now.addingTimeInterval(Self.tick)
            return [.readChangeCount(.singles), .then(.claimSingles)]
        }
        return claimSinglesIfMoved(commits: commits)
    }

    /// A refill: due deliveries first (retries, released rows, other campaigns' rows), then one expansion page at a
    /// time for what is still short (a huge campaign never stalls the first sends, nor the retries due meanwhile).
    mutating func claimIfDue(now: Date) -> [Action] {
        guard fault == nil && !stopping, now >= nextClaimAt,
            queued + heldCount < max(1, configuration.claimBatch / 2)
        else { return [] }
        return [.claim(limit: configuration.claimBatch - queued - heldCount)]
    }

    /// Another connection's change count is `changes`.
    mutating func changeCountRead(_ changes: Int64, for check: ChangeCheck, now: Date) {
        switch check {
        case .idle:
            if changes != changesSeen { nextClaimAt = now }
        case .singles:
            singlesMoved = changes != singlesChangesSeen
            singlesChangesSeen = changes
        }
    }

    /// `jobs` were claimed of `limit` asked for; `commits` and `changes` were read just before the claim, so
    /// whatever commits after it wakes the next idle turn. What is still short comes from an expansion page.
    mutating func claimed(_ jobs: [DeliveryJob], limit: Int, commits: UInt64, changes: Int64, now: Date) -> [Action] {
        commitsSeen = commits
        changesSeen = changes
        work.enqueueClaimed(jobs)
        // A full claim asks for a page too, leasing none of it: PostgreSQL expands one page per refill, ahead of its
        // workers, as they share pages; SQLite writes pages only as they are sent, and expands none.
        return [.expand(pageSize: configuration.expansionPageSize, limit: limit - jobs.count)]
    }

    /// An expansion leased `jobs` to this worker of `limit` wanted. When it expanded a page, more may be due at once;
    /// otherwise everything due is claimed: look again when the next thing comes due (or the leases of a worker that
    /// went quiet can be taken over), or at the poll interval.
    mutating func expanded(_ jobs: [DeliveryJob], limit: Int, report: ExpansionReport, now: Date) -> [Action] {
        work.enqueueClaimed(jobs)
        guard jobs.count < limit && report.pages == 0 && !report.moreRemaining else {
            nextClaimAt = now
            return []
        }
        return [.findNextDates]
    }

    /// The next due date and the other workers were read: a dead worker's leases are taken over, a quiet one's
    /// waited for, and a live one's left to it.
    mutating func nextDatesFound(due: Date?, workers: [Seen], now: Date) -> [Action] {
        let actions = workersSeen(workers, now: now)
        nextDue = due
        let poll = now.addingTimeInterval(configuration.pollInterval.seconds)
        let next = [due, nextRescue].compactMap { $0 }.min() ?? poll
        nextClaimAt = min(poll, max(next, now.addingTimeInterval(Self.tick)))
        idleConfirmed = true
        return actions
    }

    /// While bulk work waits in the queue, single sends committed since the last look are claimed and go ahead
    /// of it. The queue holds at most two claim batches: single sends arriving faster than they can be sent wait
    /// in the store (due, unleased) instead of piling up leased in memory.
    mutating func claimSinglesIfMoved(commits: UInt64) -> [Action] {
        let room = 2 * configuration.claimBatch - queued - heldCount
        guard fault == nil && !stopping, singlesMoved, room > 0 else { return [] }
        singlesMoved = false
        singlesCommitsSeen = commits
        return [.claimSingles(limit: min(room, max(1, configuration.claimBatch / 2)))]
    }

    mutating func singlesClaimed(_ jobs: [DeliveryJob]) {
        work.requeueFront(jobs)
    }
}
