import QueueModel

/// How an expansion page moves a campaign's counters, on either engine. A worker expands a campaign as it sends (a
/// page when its claim comes up short), so the campaign's first page counts the audience left to expand
/// (`unexpanded`), and the campaign's `total` and `pending` include it from then on: progress, the pending gauges
/// and a cancel see the whole audience, not only the rows written so far. Each page's rows replace their share of
/// the count; the last page drops what the count overestimated (devices deactivated before their page), and rows
/// beyond it (devices registered since) are added as they come.
package struct ExpansionCounts: Equatable, Sendable {
    package var total = 0
    package var pending = 0
    package var cancelled = 0
    /// The audience counted and not expanded yet, after the page; nil for a campaign never counted (one whose
    /// expansion began before counts were kept, or a single send expanded whole at creation).
    package var unexpanded: Int?

    /// Whether a campaign's audience is to be counted before its next page: a bulk campaign never counted
    /// (`unexpanded` nil) with nothing expanded yet (`cursor` 0). A single send is expanded whole at creation.
    package static func countsFirst(kind: CampaignKind, unexpanded: Int?, cursor: Int64) -> Bool {
        kind == .bulk && unexpanded == nil && cursor == 0
    }

    /// A page that inserted `inserted` rows, `cancelled` of them cancelled (tokens of inactive devices);
    /// `unexpanded` as it stood before the page; `counted`: the audience counted now, before this first page.
    package init(unexpanded before: Int?, counted: Int?, inserted: Int, cancelled: Int, finished: Bool) {
        self.cancelled = cancelled
        var left = before
        if let counted {
            left = counted
            total += counted
            pending += counted
        }
        guard let counted = left else {
            total += inserted
            pending += inserted - cancelled
            return
        }
        let replaced = min(inserted, counted)
        total += inserted - replaced
        pending += inserted - cancelled - replaced
        var rest = counted - replaced
        if finished {
            total -= rest
            pending -= rest
            rest = 0
        }
        unexpanded = rest
    }
}
