import APNs
import Foundation
import HTTP2Transport
import QueueModel
import Testing

@testable import Dispatcher

/// The worker's inbox: answers posted from the connections' threads reach the waiting loop, each once.
struct AnswerInboxTests {
    static let credential = SendingCredential(
        name: "default", authorization: .certificate(notAfter: .distantFuture, fingerprint: "00"))

    static func request(_ id: Int64, to inbox: AnswerInbox) -> AnswerInbox.Request {
        let job = DeliveryJob(
            id: DeliveryID(id), campaignID: CampaignID(1), kind: .bulk,
            target: .device(try! DeviceToken(String(repeating: "ab", count: 32))), environment: .production,
            content: BroadcastJobTests.job(expiration: nil).content, attempts: 0, deviceRegisteredAt: nil,
            leasedUntil: .distantFuture)
        return AnswerInbox.Request(
            job: job, credential: credential, token: nil, tokenMinted: false, inbox: inbox,
            clock: { Date(timeIntervalSince1970: 0) })
    }

    @Test func answersPostedFromManyThreadsWhileTheLoopWaitsArriveEachOnceInTheirPostersOrder() async {
        let inbox = AnswerInbox()
        let (threads, each) = (8, 500)
        let answer = TransportAnswer(WorkerStateMachineTests.status(200))
        for thread in 0..<threads {
            let requests = (0..<each).map { Self.request(Int64(thread * each + $0), to: inbox) }
            Thread.detachNewThread {
                for request in requests { request.answered(answer) }
            }
        }
        var seen: [Int64] = []
        var batch = AnswerInbox.Batch()
        while seen.count < threads * each {
            await inbox.take(into: &batch)
            #expect(!batch.woke)
            seen += batch.replies.map { $0.request.job.id.rawValue }
            batch.replies.removeAll(keepingCapacity: true)
        }
        #expect(Set(seen).count == threads * each, "each answer once")
        for thread in 0..<threads {
            let mine = seen.filter { $0 / Int64(each) == Int64(thread) }
            #expect(mine == mine.sorted(), "one poster's answers in the order it posted them")
        }
    }

    @Test func aWakeUpEndsTheWaitWithoutAnAnswer() async {
        let inbox = AnswerInbox()
        Thread.detachNewThread { inbox.wake() }
        var batch = AnswerInbox.Batch()
        await inbox.take(into: &batch)
        #expect(batch.woke && batch.replies.isEmpty)
    }
}
