/// Requests waiting on a connection, first in first out: appends and pops in O(1) (a head index,
/// compacted once the popped part is large).
struct SubmissionQueue {
    private var items: [ConnectionLoop.Submission] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }

    mutating func append(_ submission: ConnectionLoop.Submission) {
        items.append(submission)
    }

    mutating func popFirst() -> ConnectionLoop.Submission? {
        guard head < items.count else { return nil }
        let submission = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return submission
    }

    /// Empties the queue, returning what was in it.
    mutating func drain() -> ArraySlice<ConnectionLoop.Submission> {
        let rest = items[head...]
        items = []
        head = 0
        return rest
    }

    /// Removes the submissions `shouldRemove` picks, keeping the others in order; returns the removed ones.
    mutating func remove(where shouldRemove: (ConnectionLoop.Submission) -> Bool) -> [ConnectionLoop.Submission] {
        var removed: [ConnectionLoop.Submission] = []
        var kept: [ConnectionLoop.Submission] = []
        for submission in items[head...] {
            if shouldRemove(submission) { removed.append(submission) } else { kept.append(submission) }
        }
        guard !removed.isEmpty else { return [] }
        items = kept
        head = 0
        return removed
    }
}
