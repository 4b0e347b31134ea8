import Kafka
import Pipeline

/// The dead-letter summary (``DeadLetter/Original``: prefix, size, SHA-256) of the last message
/// asked for. The deliveries of one send come mostly in their messages' order, so an intent with
/// thousands of devices whose retries all ran out hashes its message once per send, not once per
/// device (hashing a 256 KiB message per device took seconds for a few thousand devices).
struct LastOriginal {
    private var message: KafkaConsumerMessage?
    private var original: DeadLetter.Original?

    /// The summary of `message`, taken now unless it was the last one asked for.
    mutating func of(_ message: KafkaConsumerMessage) -> DeadLetter.Original {
        if let original, self.message === message { return original }
        let taken = DeadLetter.Original(message.value ?? [])
        self.message = message
        original = taken
        return taken
    }
}
