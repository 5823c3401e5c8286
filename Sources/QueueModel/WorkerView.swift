import APNs
import Foundation

/// What a worker sees of its work, stored with each heartbeat (`workers.view`) so that any process (`serve
/// --no-worker`, `apnsd status`, `campaign show`) can report it: APNs per environment, its credentials, and why it
/// waits, if it does. Encoded as a small JSON text (`json`, `init(json:)`), the same on every engine.
public struct WorkerView: Hashable, Sendable, Codable {
    /// One APNs environment this worker has used.
    public struct APNsView: Hashable, Sendable, Codable {
        /// False from a failed connection attempt until a request reaches APNs again.
        public var reachable: Bool
        /// Since when it is unreachable; nil while reachable.
        public var since: Date?
        /// Its connections by state (`open`, `connecting`, `backoff`).
        public var connections: [String: Int]

        public init(reachable: Bool, since: Date? = nil, connections: [String: Int] = [:]) {
            self.reachable = reachable
            self.since = since
            self.connections = connections
        }
    }

    /// One sending credential.
    public struct CredentialView: Hashable, Sendable, Codable {
        public var name: String
        /// Why APNs refused it (its deliveries wait); nil while it sends.
        public var paused: String?
        public var pausedSince: Date?
        /// When its certificate expires; nil for a key.
        public var certificateExpires: Date?

        public init(name: String, paused: String? = nil, pausedSince: Date? = nil, certificateExpires: Date? = nil) {
            self.name = name
            self.paused = paused
            self.pausedSince = pausedSince
            self.certificateExpires = certificateExpires
        }

        /// Whole days until its certificate expires at `now` (negative: expired); nil for a key.
        public func certificateDaysLeft(now: Date) -> Int? {
            certificateExpires.map { Int(($0.timeIntervalSince(now) / 86_400).rounded(.down)) }
        }
    }

    /// Why a worker cannot send what is due, and since when.
    public struct Waiting: Hashable, Sendable, Codable {
        public enum Reason: String, Hashable, Sendable, Codable, CaseIterable {
            /// Every environment it sends to fails to connect.
            case apnsUnreachable = "apns_unreachable"
            /// APNs refused every credential it sends with.
            case credentialRefused = "credential_refused"
            /// The database refuses its writes.
            case storageFault = "storage_fault"
        }

        public var reason: Reason
        public var since: Date

        public init(reason: Reason, since: Date) {
            self.reason = reason
            self.since = since
        }
    }

    /// By environment (`production`, `development`); an environment never used is absent.
    public var apns: [String: APNsView]
    public var credentials: [CredentialView]
    /// Why the worker as a whole waits; nil while it can send.
    public var waiting: Waiting?

    public init(apns: [String: APNsView] = [:], credentials: [CredentialView] = [], waiting: Waiting? = nil) {
        self.apns = apns
        self.credentials = credentials
        self.waiting = waiting
    }

    /// Its stored form: compact JSON, times in epoch milliseconds.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads the stored form; nil for a text it cannot read (a view written by a later version is then unknown
    /// rather than an error: the worker's row still counts).
    public init?(json: String) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let view = try? decoder.decode(Self.self, from: Data(json.utf8)) else { return nil }
        self = view
    }

    /// Whether `environment` is unreachable in this view (false when it was never used).
    public func isUnreachable(_ environment: Environment) -> Bool {
        apns[environment.rawValue].map { !$0.reachable } ?? false
    }
}
