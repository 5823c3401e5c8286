import Foundation

/// Waiting on a condition instead of for a fixed time.
public enum Poll {
    /// Checks `condition` every `interval` seconds until it holds (true) or `seconds` pass (false), without blocking
    /// a thread meanwhile.
    public static func until(
        _ seconds: Double, every interval: Double = 0.05, _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .seconds(interval))
        }
        return try await condition()
    }
}
