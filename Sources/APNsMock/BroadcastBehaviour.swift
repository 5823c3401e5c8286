/// How the simulator answers broadcasts to the channels of one bundle id (the `broadcasts` object of a scenario,
/// keyed by bundle id: channel ids are made by the simulator, so a scenario cannot name them in advance).
public struct BroadcastBehaviour: Codable, Sendable, Equatable {
    /// Answer `failStatus` to the first this-many broadcasts on each channel of the app, then accept them.
    public var failTimes: Int?
    /// 429, 500 or 503 (default 429).
    public var failStatus: Int?
    /// Wait this long before answering each broadcast.
    public var delayMs: Int?

    /// A behaviour; nil members keep the normal answer.
    public init(failTimes: Int? = nil, failStatus: Int? = nil, delayMs: Int? = nil) {
        self.failTimes = failTimes
        self.failStatus = failStatus
        self.delayMs = delayMs
    }

    func validate(bundleID: String) throws {
        if let failStatus, ![429, 500, 503].contains(failStatus) {
            throw MockError.badScenario("broadcasts \(bundleID): failStatus must be 429, 500 or 503, not \(failStatus)")
        }
        if let failTimes, failTimes < 0 { throw MockError.badScenario("broadcasts \(bundleID): failTimes must be ≥ 0") }
        if let delayMs, delayMs < 0 || delayMs > 600_000 {
            throw MockError.badScenario("broadcasts \(bundleID): delayMs must be between 0 and 600000")
        }
    }
}
