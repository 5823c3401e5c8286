import APNs
import Foundation

/// The local table of broadcast channels. Only channels APNs created are recorded (after its 201), and a deleted
/// channel's row is kept, marked deleted.
public protocol ChannelStore: Actor {
    /// Records a channel APNs just created; `StoreError.invalidChannel` when its APNs id is already recorded for
    /// that environment or the id is not base64.
    func recordChannel(
        channelID: String, topic: String, environment: Environment, storage: ChannelStorage,
        credential: String, now: Date
    ) async throws(StoreError) -> Channel
    /// The channels recorded, by local number; only `topic`'s when given, and the deleted ones only with `includeDeleted`.
    func channels(topic: String?, includeDeleted: Bool) async throws(StoreError) -> [Channel]
    /// The channel `reference` names, nil when none: by local number (then, that failing, by the same text as an APNs
    /// id), or by APNs id (the live one first, then the latest deleted).
    func channel(_ reference: ChannelReference) async throws(StoreError) -> Channel?
    /// Marks channel `id` deleted at `now` (a channel already marked keeps its first time); nil when there is none.
    func markChannelDeleted(id: Int64, now: Date) async throws(StoreError) -> Channel?
}
