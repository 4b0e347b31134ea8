import Kafka

/// One outcome event (`Config/schemas/outcome-v1.schema.json`) as a report reads it.
public struct OutcomeRecord: Sendable {
    /// The event as it is on Kafka.
    public let bytes: [UInt8]
    public let delivery: DeliveryIdentity
    public let app: String
    public let environment: String
    public let status: String
    public let reason: String?
    public let template: String?
    public let pushType: String?
    public let locale: String?
    /// APNs' 410 time, Unix milliseconds.
    public let apnsTimestamp: Int64?
    /// Unix milliseconds.
    public let completedAt: Int64
    /// The intent's `created_at` to the outcome's `completed_at`, milliseconds; nil when the intent
    /// had no `created_at` (the event then has no `latency_ms` either).
    public let latency: Double?

    /// Reads an outcome event.
    /// - Throws: ``OutputRecordError`` naming the record and the field that is wrong.
    public init(_ message: KafkaConsumerMessage) throws(OutputRecordError) {
        let fields = try RecordFields(message)
        bytes = message.value ?? []
        delivery = DeliveryIdentity(intentID: try fields.string("intent_id"), token: fields.optionalString("token"),
                                    source: try fields.source())
        app = try fields.string("app")
        environment = try fields.string("environment")
        status = try fields.string("status")
        reason = fields.optionalString("reason")
        template = fields.optionalString("template")
        pushType = fields.optionalString("push_type")
        locale = fields.optionalString("locale")
        apnsTimestamp = fields.optionalInteger("apns_timestamp")
        let completedAt = try fields.integer("completed_at")
        self.completedAt = completedAt
        latency = fields.optionalInteger("created_at").map { Double(max(0, completedAt - $0)) }
    }
}
