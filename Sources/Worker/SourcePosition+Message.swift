import Kafka
import Pipeline

extension SourcePosition {
    /// Where `message` was read.
    init(_ message: KafkaConsumerMessage) {
        self.init(topic: message.topicPartition.topic, partition: message.topicPartition.partition, offset: message.offset)
    }
}
