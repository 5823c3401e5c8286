import Testing

@testable import QueueRules

/// A campaign expanded as it sends counts its audience on its first page; each page replaces its share of the count.
@Suite struct ExpansionCountsTests {
    @Test func theFirstPageCountsTheWholeAudienceAndReplacesItsShare() {
        let first = ExpansionCounts(unexpanded: nil, counted: 2500, inserted: 1000, cancelled: 0, finished: false)
        #expect(first == counts(total: 2500, pending: 2500, unexpanded: 1500))
        let second = ExpansionCounts(unexpanded: 1500, counted: nil, inserted: 1000, cancelled: 0, finished: false)
        #expect(second == counts(total: 0, pending: 0, unexpanded: 500))
    }

    @Test func theLastPageDropsWhatTheCountOverestimatedAndAddsWhatItMissed() {
        // Devices deactivated before their page: the last page finds 300 of the 500 counted.
        #expect(
            ExpansionCounts(unexpanded: 500, counted: nil, inserted: 300, cancelled: 0, finished: true)
                == counts(total: -200, pending: -200, unexpanded: 0))
        // Devices registered since the count: the pages find more than was counted.
        #expect(
            ExpansionCounts(unexpanded: 100, counted: nil, inserted: 250, cancelled: 0, finished: false)
                == counts(total: 150, pending: 150, unexpanded: 0))
    }

    @Test func tokensOfInactiveDevicesMoveFromPendingToCancelled() {
        let page = ExpansionCounts(unexpanded: nil, counted: 10, inserted: 10, cancelled: 3, finished: true)
        #expect(page == counts(total: 10, pending: 7, cancelled: 3, unexpanded: 0))
    }

    @Test func aCampaignNeverCountedAddsItsRowsAsBefore() {
        #expect(
            ExpansionCounts(unexpanded: nil, counted: nil, inserted: 40, cancelled: 2, finished: true)
                == counts(total: 40, pending: 38, cancelled: 2, unexpanded: nil))
    }

    private func counts(total: Int, pending: Int, cancelled: Int = 0, unexpanded: Int?) -> ExpansionCounts {
        var counts = ExpansionCounts(unexpanded: nil, counted: nil, inserted: 0, cancelled: 0, finished: false)
        counts.total = total
        counts.pending = pending
        counts.cancelled = cancelled
        counts.unexpanded = unexpanded
        return counts
    }
}
