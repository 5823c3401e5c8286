import APNs
import APNsMock
import Foundation
import HTTP2Transport
import TestSupport
import Testing

extension TransportIO {
    /// Failures before any HTTP exchange: refused connections, TLS verification, bad configuration and input.
    @Suite struct ConnectionErrorTests {
        @Test func aDeadPortIsConnectionRefusedAndConnectionFatal() async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            let (refusing, port) = Ports.refusing()
            defer { close(refusing) }
            let connection = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: "https://127.0.0.1:\(port)", caFile: pki.caFile, connectTimeout: .seconds(2)))
            let result = await connection.send(APNsRequest(path: "/3/device/abcd", headers: [], body: Array("{}".utf8)))
            await connection.shutdown(timeout: .seconds(2))
            let error = try #require(result.error, "\(result)")
            #expect(error.curlCode == 7)
            #expect(error.kind == .connect)
            #expect(error.isConnectionFatal)
            #expect(error.isRetryable)
            #expect(error.detail.contains("\(port)"), "\(error.detail)")
            #expect(connection.stats.connectionErrors == 1)
            #expect(connection.stats.retried == 0, "refused connections go back to the caller at once")
        }

        @Test func requestsWaitingForAConnectionThatNeverAnswersFailTogether() async throws {
            // The loop hands a new connection one request until it answers; the rest wait in its queue. When
            // that connection cannot be set up, they fail with it, not one connect timeout after another.
            let directory = try TempDirectory()
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            let listener = Ports.silentListener()
            defer { close(listener.descriptor) }
            let connection = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: "https://127.0.0.1:\(listener.port)", caFile: pki.caFile,
                    connectTimeout: .milliseconds(500)))
            let results = await sendMany(
                20, APNsRequest(path: "/3/device/abcd", headers: [], body: Array("{}".utf8)),
                via: connection.send)
            // Read after the shutdown: the loop may count the connection error just after failing the requests.
            await connection.shutdown(timeout: .seconds(2))
            let stats = connection.stats
            #expect(results.count == 20)
            #expect(results.failures.count == 20)
            #expect(results.failures.allSatisfy { $0.kind == .timeout && $0.isRetryable }, "\(results.failures)")
            // One connect timed out, and the 19 waiting behind it failed with it: none was sent on its own.
            #expect(stats.sent == 1, "20 requests must not wait 20 connect timeouts: \(stats)")
            #expect(stats.connectionErrors == 1, "\(stats)")
        }

        @Test func aServerCertificateFromAnotherCAIsRefused() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let other = try TestPKI(in: mock.directory, name: "other")
            var configuration = mock.connectionConfiguration()
            configuration.caFile = other.caFile
            let connection = try APNsConnection(configuration: configuration)
            let result = await connection.send(try mock.request())
            await connection.shutdown(timeout: .seconds(2))
            let error = try #require(result.error, "must never be silently accepted: \(result)")
            #expect(error.curlCode == 60)  // CURLE_PEER_FAILED_VERIFICATION
            #expect(error.kind == .tlsVerification)
            #expect(!error.isRetryable)
            #expect(mock.server.stats().totals.requests == 0)
        }

        @Test func withoutTheCAFileTheSystemStoreDoesNotTrustTheThrowawayCA() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            var configuration = mock.connectionConfiguration()
            configuration.caFile = nil
            let connection = try APNsConnection(configuration: configuration)
            let result = await connection.send(try mock.request())
            await connection.shutdown(timeout: .seconds(2))
            #expect(result.error?.curlCode == 60, "\(result)")
        }

        @Test func aMissingCAFileIsAConfigurationError() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            var configuration = mock.connectionConfiguration()
            configuration.caFile = mock.directory.file("does-not-exist.pem")
            let connection = try APNsConnection(configuration: configuration)
            let result = await connection.send(try mock.request())
            await connection.shutdown(timeout: .seconds(2))
            let error = try #require(result.error)
            #expect(error.kind == .tlsVerification, "\(error)")  // CURLE_SSL_CACERT_BADFILE (77)
            #expect(!error.isRetryable)
        }

        @Test(arguments: ["http://127.0.0.1:2197", "127.0.0.1:2197", "https://", "https://api.push.apple.com/"])
        func onlyHTTPSBaseURLsAreAccepted(url: String) throws {
            #expect(throws: TransportError.self) {
                try APNsConnection(configuration: ConnectionConfiguration(baseURL: url))
            }
        }

        @Test(arguments: [-1, ConnectionConfiguration.maximumRate + 1])
        func ratesOutsideTheRangeAreRefused(rate: Int) throws {
            #expect(throws: TransportError.self) {
                try APNsConnection(
                    configuration: ConnectionConfiguration(baseURL: "https://127.0.0.1:2197", ratePerSecond: rate))
            }
        }

        @Test func headerValuesWithLineBreaksAreRefusedWithoutSending() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration())
            var request = try mock.request()
            request.headers.append(("apns-collapse-id", "a\r\nx-injected: 1"))
            let refused = await connection.send(request)
            let fine = await connection.send(try mock.request())
            await connection.shutdown(timeout: .seconds(2))
            let error = try #require(refused.error)
            #expect(error.kind == .invalidRequest)
            #expect(!error.isRetryable)
            #expect(!error.description.contains("x-injected"), "header values are never printed")
            #expect(fine.status == 200)
            #expect(mock.server.stats().totals.requests == 1)
        }

        /// A campaign's requests share one header array, whose bytes a handle renders once: each request still goes
        /// with its own authorization (or none), and a bad value in another array is refused.
        @Test func requestsSharingTheirHeadersEachCarryTheirOwnAuthorization() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(maxInFlight: 1))
            let signed = try mock.request()
            #expect(signed.headers[0].name == HeaderName.authorization)
            let bearer = signed.headers[0].value
            let shared = APNsRequest(
                path: signed.path, authorization: bearer, headers: Array(signed.headers.dropFirst()), body: signed.body)
            func with(_ authorization: String?) -> APNsRequest {
                var request = shared
                request.authorization = authorization
                return request
            }
            var statuses: [Int?] = []
            var reasons: [String?] = []
            for authorization in [bearer, nil, "bearer not-a-token", bearer] {
                let result = await connection.send(with(authorization))
                statuses.append(result.status)
                reasons.append(result.errorResponse?.reason?.rawValue)
            }
            var injected = shared
            injected.headers[0].value += "\r\nx-injected: 1"
            let refused = await connection.send(injected)
            let again = await connection.send(shared)
            await connection.shutdown(timeout: .seconds(2))
            #expect(statuses == [200, 403, 403, 200])
            #expect(reasons == [nil, "MissingProviderToken", "InvalidProviderToken", nil])
            #expect(refused.error?.kind == .invalidRequest)
            #expect(again.status == 200)
        }
    }
}
