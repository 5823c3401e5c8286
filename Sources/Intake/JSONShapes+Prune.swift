import Foundation
import QueueModel

extension PruneReport {
    /// `apnsd prune --json`: one object; in a dry run the counts are what would be removed and nothing is reclaimed.
    public func json(deliveriesOlderThan: TimeSpan, devicesInactiveFor: TimeSpan) -> JSONLine {
        let deliveriesPart = JSONLine([
            "olderThan": .string(deliveriesOlderThan.description), "before": .date(deliveriesBefore),
            "removed": .int(deliveries),
        ])
        let devicesPart = JSONLine([
            "inactiveFor": .string(devicesInactiveFor.description), "before": .date(devicesBefore),
            "removed": .int(devices),
            "deactivated": .int(inactiveDevices), "notRegisteredAgain": .int(devices - inactiveDevices),
        ])
        let spacePart = JSONLine([
            "incrementalVacuum": .bool(space.incremental), "pagesReclaimed": .int(pagesReclaimed),
            "bytesReclaimed": .int(pagesReclaimed * space.pageSize), "freePages": .int(space.freePages),
            "fileBytes": .int(space.pageCount * space.pageSize),
        ])
        return JSONLine([
            "dryRun": .bool(dryRun), "deliveries": .raw(deliveriesPart.description),
            "devices": .raw(devicesPart.description),
            "space": .raw(spacePart.description), "steps": .int(steps),
        ])
    }
}
