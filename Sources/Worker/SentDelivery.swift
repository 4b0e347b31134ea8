import APNsClient

/// A delivery the sender answered, with the records built for it already (its outcome, and a dead
/// letter when its retries ran out); recording still settles its claim and adds token events.
struct SentDelivery: Sendable {
    let planned: PlannedDelivery
    let result: DeliveryResult
    let outputs: [WorkerOutput]
}
