/// Runs `body`, then awaits `cleanup` whether `body` threw or not. A test's server (and the threads it joins when it
/// stops) ends before the test does: a stop left running in a task could still be joining a thread when the test
/// process exits, which ThreadSanitizer reports as a leaked thread.
public func withCleanup<R>(_ cleanup: @autoclosure () async -> Void, _ body: () async throws -> R) async rethrows -> R {
    let result: R
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
