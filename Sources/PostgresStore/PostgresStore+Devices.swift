import APNs
import Foundation
import QueueModel

extension PostgresStore {
    public func register(_ registration: DeviceRegistration, now: Date) throws(StoreError) -> Device {
        throw unfinished()
    }

    public func registerDevice(_ registration: DeviceRegistration, now: Date) throws(StoreError) -> RegistrationResult {
        throw unfinished()
    }

    public func devices(token: DeviceToken) throws(StoreError) -> [Device] {
        throw unfinished()
    }

    public func deactivateDevice(token: DeviceToken, topic: String?, reason: Reason, now: Date) throws(StoreError) -> Device? {
        throw unfinished()
    }

    public func deactivateDevices(user: String, reason: Reason, now: Date) throws(StoreError) -> Int {
        throw unfinished()
    }

    public func importDevices(_ registrations: [DeviceRegistration], now: Date, commitEvery: Int) throws(StoreError) -> Int {
        throw unfinished()
    }

    public func device(token: DeviceToken, topic: String) throws(StoreError) -> Device? {
        throw unfinished()
    }

    public func devices(active: Bool?, user: String?, after: Int64?, limit: Int) throws(StoreError) -> [Device] {
        throw unfinished()
    }

    public func deviceCount(active: Bool?) throws(StoreError) -> Int {
        throw unfinished()
    }
}
