import Dispatcher
import Foundation
import Testing

/// `/readyz`'s `apns` decision: ready while APNs answered within the minute or nothing went unanswered.
@Suite struct APNsContactTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func nothingTriedOrEverythingAnsweredIsReady() {
        #expect(APNsContact().readiness(now: t0) == "ok")
        var contact = APNsContact()
        contact.answered(at: t0)
        #expect(contact.readiness(now: t0.addingTimeInterval(3600)) == "ok", "idle for an hour: nothing needed sending")
    }

    @Test func failuresAreUnreadyOnlyAfterAMinuteWithoutAnswer() {
        var contact = APNsContact()
        contact.answered(at: t0)
        contact.unanswered(at: t0.addingTimeInterval(10))
        #expect(contact.readiness(now: t0.addingTimeInterval(60)) == "ok", "answered within the minute")
        #expect(contact.readiness(now: t0.addingTimeInterval(65)) == "ok", "failing for less than a minute")
        #expect(
            contact.readiness(now: t0.addingTimeInterval(71))
                == "no answer from APNs for 71 s; sends failing since then")
    }

    @Test func failuresWithoutAnyAnswerGetTheWindowThenAreUnready() {
        var contact = APNsContact()
        contact.unanswered(at: t0)
        contact.unanswered(at: t0.addingTimeInterval(30))
        #expect(contact.unansweredSince == t0, "the first failure counts")
        #expect(contact.readiness(now: t0.addingTimeInterval(59)) == "ok")
        #expect(contact.readiness(now: t0.addingTimeInterval(90)) == "no answer from APNs yet; sends failing for 90 s")
    }

    @Test func anAnswerEndsTheOutage() {
        var contact = APNsContact()
        contact.unanswered(at: t0)
        contact.answered(at: t0.addingTimeInterval(300))
        #expect(contact.unansweredSince == nil && contact.lastAnswer == t0.addingTimeInterval(300))
        #expect(contact.readiness(now: t0.addingTimeInterval(1000)) == "ok")
    }
}
