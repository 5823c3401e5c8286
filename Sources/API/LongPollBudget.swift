import Threads

/// Slots for long polls that wait (`GET /v1/events?wait=`): so many in all (`api.maxLongPolls`) and per API key
/// (`api.maxLongPollsPerKey`). Each holds a suspended connection and a task for up to its wait; beyond the slots a
/// request is answered at once with what there is, so that one client cannot hold the rest waiting.
final class LongPollBudget: Sendable {
    private let total: Int
    private let perKey: Int
    private let held = Locked<(total: Int, byKey: [String: Int])>((0, [:]))

    init(total: Int, perKey: Int) {
        self.total = total
        self.perKey = perKey
    }

    /// Takes a slot for `key`; false when none is free (in all or for that key).
    func take(_ key: String) -> Bool {
        held.withLock { held in
            guard held.total < total, held.byKey[key, default: 0] < perKey else { return false }
            held.total += 1
            held.byKey[key, default: 0] += 1
            return true
        }
    }

    /// Gives back a slot `take` granted to `key`.
    func release(_ key: String) {
        held.withLock { held in
            held.total -= 1
            let left = held.byKey[key, default: 1] - 1
            held.byKey[key] = left > 0 ? left : nil
        }
    }

    /// Slots held now.
    var inUse: Int { held.withLock { $0.total } }
}
