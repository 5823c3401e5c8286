import QueueModel

/// The order in which a device import writes its registrations, on either engine.
package enum ImportOrder {
    /// The indices of `registrations` in (token, topic) byte order with each device once, and for a device given
    /// several times, its merged registration (by the index kept): its last environment, kind and activity type
    /// and its last user given, as if its registrations had been applied in input order.
    package static func of(_ registrations: [DeviceRegistration]) -> (order: [Int], merged: [Int: DeviceRegistration]) {
        let sorted = ByteOrder.indices(
            count: registrations.count, prefix: { ByteOrder.Prefix(registrations[$0].token) },
            precedes: { a, b in
                let left = registrations[a]
                let right = registrations[b]
                if left.token != right.token { return left.token < right.token }
                if left.topic != right.topic { return ByteOrder.precedes(left.topic, right.topic) }
                return a < b
            })
        var order: [Int] = []
        order.reserveCapacity(sorted.count)
        var merged: [Int: DeviceRegistration] = [:]
        for index in sorted {
            guard let kept = order.last, registrations[kept].token == registrations[index].token,
                registrations[kept].topic == registrations[index].topic
            else {
                order.append(index)
                continue
            }
            var registration = merged[kept] ?? registrations[kept]
            registration.environment = registrations[index].environment
            registration.kind = registrations[index].kind
            registration.activityType = registrations[index].activityType
            if let user = registrations[index].user { registration.user = user }
            merged[kept] = registration
        }
        return (order, merged)
    }
}
