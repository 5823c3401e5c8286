import QueueModel

/// The SQLite store is both sides of the queue: the worker's and the producers'.
extension Store: DeliveryStore, ProducerStore {}
