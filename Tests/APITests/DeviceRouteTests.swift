import Foundation
import QueueModel
import TestSupport
import Testing

/// The device routes and the event feed, on a real store: registration (201/200), replacement, removal, a
/// user's devices, listing with a cursor, and the events each deactivation writes.
@Suite struct DeviceRouteTests {
    private let t1 = Tokens.hex(1)
    private let t2 = Tokens.hex(2)
    private let t3 = Tokens.hex(3)

    @Test func registerRefreshReplaceRemove() async throws {
        let h = try await APITester()
        let key = try await h.key("app", [.send, .read])
        let created = await h.call(
            "PUT", "/v1/devices/\(t1)", #"{"user":"alice","environment":"development"}"#, key: key)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["user"] as? String == "alice" && created.json["environment"] as? String == "development")
        #expect(await h.call("PUT", "/v1/devices/\(t1)", #"{"user":"alice"}"#, key: key).status == 200)

        let replaced = await h.call("PUT", "/v1/devices/\(t2)", #"{"replaces":"\#(t1)"}"#, key: key)
        #expect(
            replaced.status == 201 && replaced.json["user"] as? String == "alice",
            "the new token inherits the user: \(replaced.text)")
        let old = await h.call("GET", "/v1/devices/\(t1)", key: key)
        #expect(
            old.status == 200 && old.json["active"] as? Bool == false && old.json["reason"] as? String == "Replaced",
            "\(old.text)")

        #expect(await h.call("PUT", "/v1/devices/\(t3)", #"{"user":"alice"}"#, key: key).status == 201)
        let removed = await h.call("DELETE", "/v1/devices/\(t3)", key: key)
        #expect(removed.status == 204 && removed.text.isEmpty)
        #expect(await h.call("GET", "/v1/devices/\(t3)", key: key).json["reason"] as? String == "Removed")
        #expect(await h.call("DELETE", "/v1/devices/\(Tokens.hex(99))", key: key).status == 404)

        let signedOut = await h.call("DELETE", "/v1/users/alice/devices", key: key)
        #expect(
            signedOut.status == 200 && signedOut.json["deactivated"] as? Int == 1,
            "only t2 was still active: \(signedOut.text)")

        let events = await h.call("GET", "/v1/events", key: key)
        let list = events.json["events"] as? [[String: Any]] ?? []
        #expect(list.map { $0["reason"] as? String } == ["Replaced", "Removed", "Removed"], "\(events.text)")
        #expect(list.map { $0["token"] as? String } == [t1, t3, t2])
        #expect(
            list.allSatisfy {
                $0["type"] as? String == "device.deactivated" && $0["id"] is String && $0["user"] as? String == "alice"
            })
        let next = try #require(events.json["next"] as? String)
        let after = await h.call("GET", "/v1/events?after=\(next)", key: key)
        #expect((after.json["events"] as? [Any])?.isEmpty == true && after.json["next"] as? String == next)
        await h.close()
    }

    @Test func aLongPollReturnsWhenAnEventIsWritten() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        #expect(await h.call("PUT", "/v1/devices/\(t1)", "{}", key: key).status == 201)
        async let polled = h.call("GET", "/v1/events?wait=30", key: key)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await h.call("DELETE", "/v1/devices/\(t1)", key: key).status == 204)
        let reply = await polled
        let events = reply.json["events"] as? [[String: Any]] ?? []
        #expect(events.count == 1 && events.first?["token"] as? String == t1, "\(reply.text)")
        await h.close()
    }

    @Test func aStoppingServerAnswersItsLongPolls() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        // The poll asks to wait 30 s; a stop must answer it well before (the bound is generous, not a timing).
        let answeredFirst = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                let reply = await h.call("GET", "/v1/events?wait=30", key: key)
                return reply.status == 200 && (reply.json["events"] as? [Any])?.isEmpty == true
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(200))
                h.api.beginShutdown()
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(answeredFirst)
        await h.close()
    }

    @Test func listingPagesByUserAndState() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        for n in 1...5 {
            #expect(
                await h.call(
                    "PUT", "/v1/devices/\(Tokens.hex(n))", #"{"user":"\#(n % 2 == 0 ? "bob" : "carol")"}"#,
                    key: key
                ).status == 201)
        }
        #expect(await h.call("DELETE", "/v1/devices/\(Tokens.hex(5))", key: key).status == 204)
        var tokens: [String] = []
        var cursor: String?
        repeat {
            let page = await h.call("GET", "/v1/devices?limit=2" + (cursor.map { "&after=\($0)" } ?? ""), key: key)
            #expect(page.status == 200, "\(page.text)")
            tokens += (page.json["devices"] as? [[String: Any]] ?? []).compactMap { $0["token"] as? String }
            cursor = page.json["next"] as? String
        } while cursor != nil
        #expect(tokens == (1...5).map { Tokens.hex($0) })
        let carol = await h.call("GET", "/v1/devices?user=carol&active=true", key: key)
        #expect(
            (carol.json["devices"] as? [[String: Any]])?.compactMap { $0["token"] as? String } == [
                Tokens.hex(1), Tokens.hex(3),
            ])
        #expect(await h.call("GET", "/v1/devices?active=maybe", key: key).errorField == "active")
        #expect(await h.call("GET", "/v1/devices?colour=red", key: key).errorField == "colour")
        await h.close()
    }

    @Test func invalidDeviceRequestsWriteNothing() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        let cases: [(String, String, String?)] = [
            ("/v1/devices/xyz", "{}", "token"),
            ("/v1/devices/\(t1)", #"{"environment":"staging"}"#, "environment"),
            ("/v1/devices/\(t1)", #"{"user":""}"#, "user"),
            ("/v1/devices/\(t1)", #"{"topic":"not a topic"}"#, "topic"),
            ("/v1/devices/\(t1)", #"{"replaces":"\#(t1)"}"#, "replaces"),
            ("/v1/devices/\(t1)", #"{"colour":"red"}"#, "colour"),
            ("/v1/devices/\(t1)", #"{"user":7}"#, "user"),
        ]
        for (path, body, field) in cases {
            let reply = await h.call("PUT", path, body, key: key)
            #expect(reply.status == 400 && reply.errorField == field, "\(path) \(body): \(reply.text)")
        }
        #expect(try await h.store.deviceCount(active: nil) == 0)
        let readOnly = h.reader
        #expect(await h.call("PUT", "/v1/devices/\(t1)", "{}", key: readOnly).status == 403)
        #expect(await h.call("DELETE", "/v1/users/alice/devices", key: readOnly).status == 403)
        #expect(await h.call("GET", "/v1/events", key: nil).status == 401)
        #expect(await h.call("GET", "/v1/events?wait=31", key: key).errorField == "wait")
        #expect(await h.call("GET", "/v1/events?after=abc", key: key).errorField == "after")
        await h.close()
    }

    @Test func aTokenOfSeveralTopicsNeedsTheTopic() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        #expect(await h.call("PUT", "/v1/devices/\(t1)", "{}", key: key).status == 201)
        #expect(await h.call("PUT", "/v1/devices/\(t1)", #"{"topic":"com.example.other"}"#, key: key).status == 201)
        #expect(await h.call("GET", "/v1/devices/\(t1)", key: key).errorField == "topic")
        #expect(await h.call("DELETE", "/v1/devices/\(t1)", key: key).errorField == "topic")
        let one = await h.call("GET", "/v1/devices/\(t1)?topic=com.example.other", key: key)
        #expect(one.status == 200 && one.json["topic"] as? String == "com.example.other")
        #expect(await h.call("DELETE", "/v1/devices/\(t1)?topic=com.example.other", key: key).status == 204)
        #expect(try await h.store.deviceCount(active: true) == 1)
        await h.close()
    }
}

/// Enqueues from many concurrent requests: grouped into shared transactions, each answered with its own id.
@Suite struct ConcurrentEnqueueTests {
    @Test func concurrentPostsEachGetTheirOwnNotification() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        let replies = await withTaskGroup(of: APITester.Reply.self) { group in
            for n in 0..<200 {
                group.addTask {
                    await h.call(
                        "POST", "/v1/notifications",
                        #"{"token":"\#(Tokens.hex(n))","payload":{"aps":{"alert":"\#(n)"}}}"#, key: key,
                        timeout: 120)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(
            replies.allSatisfy { $0.status == 202 && $0.json["deliveries"] as? Int == 1 },
            "\(replies.first { $0.status != 202 }?.text ?? "")")
        #expect(Set(replies.compactMap { $0.json["id"] as? String }).count == 200)
        #expect(try await h.store.log(LogFilter(), after: nil, limit: 1000).count == 200)
        let same = await withTaskGroup(of: APITester.Reply.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await h.call(
                        "POST", "/v1/notifications", #"{"user":"u","payload":{"aps":{}}}"#, key: key,
                        headers: ["Idempotency-Key: once"])
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(same.compactMap { $0.json["id"] as? String }).count == 1)
        #expect(
            same.filter { $0.status == 202 }.count == 1
                && same.filter { $0.headers["Idempotent-Replayed"] == "true" }.count == 19)
        let metrics = await h.call("GET", "/metrics", key: nil)
        #expect(
            metrics.text.contains(#"apnsd_notifications_enqueued_total{source="notifications"} 201"#),
            "replays are not counted")
        await h.close()
    }
}

/// A database the API cannot use answers 503 with `Retry-After`, and the request is not half-done.
@Suite struct UnavailableDatabaseTests {
    @Test func aClosedStoreIs503() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        #expect(await h.call("GET", "/v1/campaigns", key: key).status == 200)
        await h.store.close()
        let reply = await h.call(
            "POST", "/v1/notifications", #"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}}}"#, key: key)
        #expect(
            reply.status == 503 && reply.errorCode == "database_unavailable" && reply.headers["Retry-After"] == "1",
            "\(reply.text)")
        let listed = await h.call("GET", "/v1/deliveries", key: key)
        #expect(listed.status == 503, "\(listed.text)")
        await h.close()
    }
}
