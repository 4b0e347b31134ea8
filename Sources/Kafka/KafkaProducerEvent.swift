/// What a ``KafkaProducer`` tells its owner, on the producer's own event thread.
public enum KafkaProducerEvent: Sendable {
    /// Delivery reports, in batches as librdkafka hands them over.
    case deliveryReports([KafkaDeliveryReport])
    /// A client-level error. librdkafka retries transient ones by itself; after a fatal one
    /// (``KafkaError/isFatal``) the producer can deliver nothing more.
    case error(KafkaError)
}
