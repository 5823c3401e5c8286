import Foundation
import QueueModel

extension OutcomeSeries {
    /// `GET /v1/stats/series`: the step in seconds, the campaign (null for everything), when it was read, one point
    /// per step in time order (its start, the requests sent in it and its outcomes by status), and the window's
    /// outcomes by status and reason (keys sorted).
    public var json: JSONLine {
        let points = points.map { point in
            JSONLine([
                "at": .date(point.at), "requests": .int(point.requests),
                "outcomes": .raw(OutcomeStats.counts(point.outcomes)),
            ]).description
        }
        let reasons = reasons.sorted { $0.key < $1.key }.map { ($0.key, OutcomeStats.counts($0.value)) }
        return JSONLine([
            "step": .int(step), "campaign": .string(campaign?.description), "until": .date(until),
            "points": .raw("[" + points.joined(separator: ",") + "]"), "reasons": .raw(OutcomeStats.object(reasons)),
        ])
    }
}
