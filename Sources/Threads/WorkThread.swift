import Foundation

/// A dedicated thread that sleeps until work is handed to it, then handles everything handed so far as one
/// batch (so requests made while a batch runs are coalesced into the next). The one thread-plus-condition loop
/// of the program: the Store's serial executor and the WAL checkpointer are built on it.
public final class WorkThread<Work: Sendable>: @unchecked Sendable {
    /// What `stop` does with work handed in and not started yet.
    public enum Leftovers: Sendable { case finish, drop }

    // `pending` and `stopping` are guarded by `condition`.
    private let condition = NSCondition()
    private var pending: [Work] = []
    private var stopping: Leftovers?
    private var thread: DedicatedThread!

    /// Starts a thread called `name` that passes each batch of work to `handle`, in the order it was handed in.
    public init(name: String, handle: @escaping @Sendable ([Work]) -> Void) {
        thread = DedicatedThread(name: name) { [self] in run(handle) }
    }

    /// Hands `work` to the thread.
    public func submit(_ work: Work) {
        condition.lock()
        pending.append(work)
        condition.signal()
        condition.unlock()
    }

    /// Whether the calling code runs on this thread.
    public var isCurrentThread: Bool { thread.isCurrent }

    /// Ends the thread after the batch it is handling, finishing or dropping what is still pending; `wait` blocks
    /// until it has ended (never from the thread itself).
    public func stop(leftovers: Leftovers, wait: Bool) {
        condition.lock()
        stopping = leftovers
        condition.signal()
        condition.unlock()
        if wait { thread.join() }
    }

    private func run(_ handle: @Sendable ([Work]) -> Void) {
        var batch: [Work] = []
        while true {
            condition.lock()
            while pending.isEmpty && stopping == nil { condition.wait() }
            if stopping == .drop || (pending.isEmpty && stopping == .finish) {
                condition.unlock()
                return
            }
            swap(&batch, &pending)
            condition.unlock()
            handle(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }
}
