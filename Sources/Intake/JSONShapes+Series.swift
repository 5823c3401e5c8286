import Foundation
import Logging
import QueueModel

extension OutcomeSeries {
    /// `GET /v1/stats/series`: the step in seconds, the campaign (null for everything), when it was read, one point
    /// per step in time order (its start, the requests sent in it and its outcomes by status), and the window's
    /// outcomes by status and reason (keys sorted).
    public var json: JSONLine {
        let points = points.map { point in
            let outcomes = point.outcomes.sorted { $0.key < $1.key }.map { "\(JSONText.quote($0.key)):\($0.value)" }
            return JSONLine([
                "at": .date(point.at), "requests": .int(point.requests),
                "outcomes": .raw("{" + outcomes.joined(separator: ",") + "}"),
            ]).description
        }
        let reasons = reasons.sorted { $0.key < $1.key }.map { status, counts in
            let members = counts.sorted { $0.key < $1.key }.map { "\(JSONText.quote($0.key)):\($0.value)" }
            return "\(JSONText.quote(status)):{" + members.joined(separator: ",") + "}"
        }
        return JSONLine([
            "step": .int(step), "campaign": .string(campaign?.description), "until": .date(until),
            "points": .raw("[" + points.joined(separator: ",") + "]"),
            "reasons": .raw("{" + reasons.joined(separator: ",") + "}"),
        ])
    }
}
