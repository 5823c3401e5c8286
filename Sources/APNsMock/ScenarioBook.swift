import APNs
import Foundation

/// The scenario at run time: looks up a token's behaviour and counts its scripted failures across connections.
final class ScenarioBook: @unchecked Sendable {
    let scenario: Scenario
    private let lock = NSLock()
    private var failuresServed: [String: Int] = [:]
    private let prefixes: [(String, TokenBehaviour)]

    init(_ scenario: Scenario) {
        self.scenario = scenario
        prefixes = scenario.tokenPrefixes.sorted { $0.key.count > $1.key.count }
    }

    /// The answer the scenario scripts for `token`, or nil for a normal 200.
    func answer(token: String, nowMilliseconds: Int64) -> (
        status: Int, reason: Reason?, timestamp: Int64?, delayMs: Int
    )? {
        if scenario.isEmpty { return nil }
        guard let behaviour = behaviour(for: token) else { return nil }
        let delay = behaviour.delayMs ?? 0
        if let times = behaviour.failTimes, times > 0 {
            lock.lock()
            let served = failuresServed[token, default: 0]
            if served < times { failuresServed[token] = served + 1 }
            lock.unlock()
            if served < times {
                let status = behaviour.failStatus ?? 429
                let reason: Reason =
                    status == 429 ? .tooManyRequests : status == 500 ? .internalServerError : .serviceUnavailable
                return (status, reason, nil, delay)
            }
        }
        switch behaviour.respond ?? .ok {
        case .ok: return delay > 0 ? (200, nil, nil, delay) : nil
        case .unregistered: return (410, .unregistered, behaviour.timestamp ?? nowMilliseconds, delay)
        case .expiredToken: return (410, .expiredToken, behaviour.timestamp ?? nowMilliseconds, delay)
        case .badDeviceToken: return (400, .badDeviceToken, nil, delay)
        case .notForTopic: return (400, .deviceTokenNotForTopic, nil, delay)
        }
    }

    private func behaviour(for token: String) -> TokenBehaviour? {
        if let exact = scenario.tokens[token] { return exact }
        return prefixes.first { token.hasPrefix($0.0) }?.1
    }
}
