import Foundation
import Kafka
import Pipeline
import Redis
import Runtime
import Synchronization

/// Keeps the token registry in step with the `pushline.tokens` topic, on a thread of its own: poll a
/// batch of records, decode them (a bad one becomes a dead letter with its reason, and the records
/// after it go on), apply the rest to the registry in one Redis round trip, wait until Kafka has the
/// dead letters, and only then mark the batch's messages complete, so offsets advance at the
/// watermark only over records that are in the registry or the DLQ.
///
/// While Redis cannot be reached, the batch in hand is tried again with backoff: no record is
/// skipped, and applying records again is harmless (``TokenRegistry/apply(_:)``). ``stop()`` ends
/// the wait, leaving that batch to be read again after a restart, then flushes, commits and closes.
/// An error the feed cannot wait out (Kafka failing, Redis refusing a command for good) stops it
/// without completing the batch in hand; ``stop()`` throws it.
public final class TokenFeed: Sendable {
    /// Counts since the feed started.
    public struct Statistics: Sendable, Equatable {
        /// Records applied to the registry (whatever their effect).
        public var recordsApplied = 0
        /// Records sent to the DLQ because they could not be decoded.
        public var deadLetters = 0
        /// Batches tried again because Redis could not be reached.
        public var redisRetries = 0
    }

    private let configuration: TokenFeedConfiguration
    private let stopping = Atomic<Bool>(false)
    /// Signalled by ``stop()``, to cut a wait for Redis short.
    private let wake = Semaphore()
    private let finished = Semaphore()
    private let failure = Mutex<(any Error)?>(nil)
    private let counts = Mutex(Statistics())

    public init(configuration: TokenFeedConfiguration) {
        self.configuration = configuration
    }

    /// Starts the feed's thread; call once.
    public func start() {
        Thread.detachNewThread { [self] in
            do {
                try run()
            } catch {
                failure.withLock { $0 = error }
            }
            finished.signal()
        }
    }

    /// Asks the feed to stop after the batch in hand and waits until it has drained and closed.
    /// Blocking: call it from a thread of its own, never from Swift's cooperative pool.
    public func stop() throws {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        finished.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    public var statistics: Statistics { counts.withLock { $0 } }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func run() throws {
        let acknowledgements = OutputAcknowledgements()
        let producer = try KafkaProducer(configuration: configuration.producer, eventHandler: acknowledgements.record)
        let consumer = try KafkaConsumer(configuration: configuration.consumer)
        // Connected at the first batch, so a feed started while Redis is down waits for it there.
        var connection: RedisConnection?
        while !isStopping {
            let batch = consumer.poll(maxMessages: configuration.batchSize, timeout: configuration.pollTimeout)
            guard !batch.isEmpty else { continue }
            var registrations: [TokenRegistration] = []
            var deadLetters: [KafkaProducerMessage] = []
            for message in batch {
                do {
                    registrations.append(try TokenRegistrationDecoder.decode(message.value ?? []))
                } catch {
                    deadLetters.append(deadLetter(for: message, error))
                }
            }
            guard try apply(registrations, connection: &connection) else { break }
            if !deadLetters.isEmpty {
                try acknowledgements.wait(for: try producer.send(deadLetters), timeout: configuration.outputTimeout)
            }
            counts.withLock {
                $0.recordsApplied += registrations.count
                $0.deadLetters += deadLetters.count
            }
            consumer.complete(batch)
        }
        try producer.close()
        try consumer.commit()
        try consumer.close()
    }

    /// Applies `registrations` to the registry, trying again while Redis cannot be reached; false
    /// when the feed was stopped before they could be applied.
    private func apply(_ registrations: [TokenRegistration], connection: inout RedisConnection?) throws(RedisError) -> Bool {
        guard !registrations.isEmpty else { return true }
        var random = SystemRandomNumberGenerator()
        var retry = 0
        while true {
            do throws(RedisError) {
                let link: RedisConnection
                if let connection {
                    link = connection
                } else {
                    link = try RedisConnection(configuration: configuration.redis)
                    connection = link
                }
                _ = try TokenRegistry(connection: link).apply(registrations)
                return true
            } catch {
                guard error.isRetryable else { throw error }
                counts.withLock { $0.redisRetries += 1 }
                let delay = configuration.redisRetry.delay(beforeRetry: retry, using: &random)
                retry += 1
                _ = wake.wait(milliseconds: Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000))
                if isStopping { return false }
            }
        }
    }

    /// The dead letter of a record that could not be decoded: its bytes, the code and the JSON path.
    private func deadLetter(for message: KafkaConsumerMessage, _ error: TokenRegistrationDecodingError) -> KafkaProducerMessage {
        let source = SourcePosition(topic: message.topicPartition.topic, partition: message.topicPartition.partition, offset: message.offset)
        let letter = DeadLetter(reason: error.code.rawValue, detail: error.description, source: source, original: message.value ?? [],
                                intentID: nil, recordedAt: Int64(Date().timeIntervalSince1970 * 1000))
        return KafkaProducerMessage(topic: configuration.dlqTopic, key: message.key, value: letter.encoded)
    }
}
