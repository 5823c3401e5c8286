import Foundation
import Intake
import QueueModel

extension API {
    /// Refuses query parameters other than `names` (a misspelt filter must not silently list everything).
    static func allowOnly(_ names: Set<String>, _ request: APIRequest) throws(APIError) {
        if let unknown = request.http.query.first(where: { !names.contains($0.name) }) {
            throw .invalid("unknown query parameter \(unknown.name)", field: unknown.name)
        }
    }

    /// `limit`, 1…maximum.
    static func limit(_ request: APIRequest, default value: Int, maximum: Int) throws(APIError) -> Int {
        guard let text = request.query("limit") else { return value }
        guard let limit = Int(text), (1...maximum).contains(limit) else {
            throw .invalid("limit must be a whole number from 1 to \(maximum)", field: "limit")
        }
        return limit
    }

    /// `after`, a cursor from an earlier page's `next` (an id).
    static func cursor(_ request: APIRequest) throws(APIError) -> Int64? {
        guard let text = request.query("after") else { return nil }
        guard let value = Int64(text), value > 0 else {
            throw .invalid("after must be a cursor from an earlier page's next", field: "after")
        }
        return value
    }

    /// A campaign's or notification's id (`campaign=`, `notification=`).
    static func id(_ request: APIRequest, _ name: String) throws(APIError) -> CampaignID? {
        guard let text = request.query(name) else { return nil }
        guard let id = CampaignID(text) else { throw .invalid("\(name) must be an id", field: name) }
        return id
    }

    /// A query parameter that must be one of an enumeration's values.
    static func enumQuery<T: RawRepresentable & CaseIterable>(_ request: APIRequest, _ name: String, _ type: T.Type)
        throws(APIError) -> T?
    where T.RawValue == String {
        guard let text = request.query(name) else { return nil }
        guard let value = T(rawValue: text) else {
            throw .invalid("\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))", field: name)
        }
        return value
    }

    /// A time: ISO 8601, or a duration back from now (`90m`, `24h`, `7d`).
    static func time(_ request: APIRequest, _ name: String) throws(APIError) -> Date? {
        guard let text = request.query(name) else { return nil }
        do { return try PastTime.parse(text, now: Date()) } catch { throw .invalid("\(name): \(error)", field: name) }
    }
}
