import HTTP2Transport

/// Sends `request` `count` times concurrently (the transport bounds what is in flight) and collects the results.
func sendMany(
    _ count: Int, _ request: APNsRequest, via send: @escaping @Sendable (APNsRequest) async -> TransportResult
) async -> [TransportResult] {
    await withTaskGroup(of: TransportResult.self) { group in
        for _ in 0..<count { group.addTask { await send(request) } }
        var results: [TransportResult] = []
        results.reserveCapacity(count)
        for await result in group { results.append(result) }
        return results
    }
}

extension Array where Element == TransportResult {
    var statuses: [Int: Int] {
        var counts: [Int: Int] = [:]
        for case .response(let status, _, _) in self { counts[status, default: 0] += 1 }
        return counts
    }

    var failures: [TransportError] { compactMap(\.error) }
}
