import APNs
import Foundation
import Intake

extension FuzzTargets {
    /// `Configuration().apply(fileBytes:)`: throws only IntakeError (typed), never crashes; what it accepts is
    /// within each setting's range.
    public static func config(_ bytes: [UInt8]) {
        var configuration = Configuration()
        do {
            try configuration.apply(fileBytes: bytes)
        } catch {
            require(!error.description.isEmpty, "an empty error")
            return
        }
        let c = configuration
        require((1...64).contains(c.connections), "connections \(c.connections)")
        require((0...1_000_000).contains(c.rate), "rate \(c.rate)")
        require((1...100).contains(c.maxAttempts), "maxAttempts \(c.maxAttempts)")
        require((0.1...600).contains(c.requestTimeout), "requestTimeout \(c.requestTimeout)")
        require((0.001...3600).contains(c.retryBase), "retryBase \(c.retryBase)")
        require((0.001...86_400).contains(c.retryCap), "retryCap \(c.retryCap)")
        require((1...2_592_000).contains(c.retryMaxAge), "retryMaxAge \(c.retryMaxAge)")
        require((0.05...3600).contains(c.workerHeartbeat), "workerHeartbeat \(c.workerHeartbeat)")
        require((0.1...86_400).contains(c.workerLease), "workerLease \(c.workerLease)")
        require(["debug", "info", "warning", "error"].contains(c.logLevel), "logLevel \(c.logLevel)")
        if let topic = c.topic { require((try? Topic.validate(topic)) != nil, "topic \(topic)") }
        for text in [c.database, c.keyFile, c.keyID, c.teamID, c.caFile].compactMap({ $0 }) {
            require(!text.trimmingCharacters(in: .whitespaces).isEmpty, "an empty path or id")
        }
        for url in [c.productionURL, c.developmentURL] {
            require(url.lowercased().hasPrefix("https://") && !url.hasSuffix("/"), "base URL \(Printable.escaped(url))")
        }
        _ = c.lease
    }
}
