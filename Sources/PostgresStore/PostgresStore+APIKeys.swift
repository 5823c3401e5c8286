import APNs
import Foundation
import QueueModel

extension PostgresStore {
    public func createAPIKey(name: String, scopes: Set<APIKeyScope>, secretHash: String, now: Date) throws(StoreError) -> APIKeyRecord {
        throw unfinished()
    }

    public func apiKeys() throws(StoreError) -> [APIKeyRecord] {
        throw unfinished()
    }

    public func revokeAPIKey(name: String) throws(StoreError) -> Bool {
        throw unfinished()
    }

    public func authenticateAPIKey(secretHash: String, now: Date) throws(StoreError) -> APIKeyRecord? {
        throw unfinished()
    }
}
