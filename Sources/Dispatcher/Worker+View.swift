import APNs
import Foundation
import HTTP2Transport
import QueueModel

extension Worker {
    /// Since when each environment has been unreachable, as of the loop's last turn (absent: reachable or never
    /// used), for `apnsd_apns_reachable` and the view.
    public var unreachableSince: [Environment: Date] { outagesSeen.withLock { $0 } }

    /// The environments this worker has pools for (those it has sent to, or tried to).
    public var environmentsUsed: Set<Environment> { Set(transport.stats.keys.map(\.environment)) }

    /// What this worker sees now, as stored with its heartbeat: `unreachable` (since when, by environment),
    /// `fault` (since when the database refuses its writes) and its transport's and credentials' states.
    func view(unreachable: [Environment: Date], fault: Date?) -> WorkerView {
        var connections: [Environment: [String: Int]] = [:]
        for (key, pool) in transport.stats {
            // Every state, zeros included, as `apnsd_apns_connections` shows them.
            var counts =
                connections[key.environment]
                ?? Dictionary(uniqueKeysWithValues: ConnectionState.allCases.map { ($0.rawValue, 0) })
            for connection in pool { counts[connection.state.rawValue, default: 0] += 1 }
            connections[key.environment] = counts
        }
        var apns: [String: WorkerView.APNsView] = [:]
        for environment in Set(connections.keys).union(unreachable.keys) {
            apns[environment.rawValue] = WorkerView.APNsView(
                reachable: unreachable[environment] == nil, since: unreachable[environment],
                connections: connections[environment] ?? [:])
        }
        let credentials = credentialStatuses.map {
            WorkerView.CredentialView(
                name: $0.name, paused: $0.paused, pausedSince: $0.pausedSince, certificateExpires: $0.certificateExpires
            )
        }
        return WorkerView(
            apns: apns, credentials: credentials,
            waiting: Self.waiting(
                unreachable: unreachable, used: Set(apns.keys), credentials: credentials, fault: fault))
    }

    /// Why the worker as a whole cannot send: the database refuses its writes; every environment it used is
    /// unreachable; or APNs refused every credential. Nil when something can go out.
    static func waiting(
        unreachable: [Environment: Date], used: Set<String>, credentials: [WorkerView.CredentialView], fault: Date?
    ) -> WorkerView.Waiting? {
        if let fault { return .init(reason: .storageFault, since: fault) }
        if !unreachable.isEmpty, Set(unreachable.keys.map(\.rawValue)) == used, let since = unreachable.values.min() {
            return .init(reason: .apnsUnreachable, since: since)
        }
        let paused = credentials.compactMap(\.pausedSince)
        if !credentials.isEmpty, paused.count == credentials.count, let since = paused.min() {
            return .init(reason: .credentialRefused, since: since)
        }
        return nil
    }
}
