import APNsClient
import Enrichment
import Foundation
import Kafka
import Redis
import Runtime
import Synchronization

/// Runs one pipeline on a thread of its own: poll a bounded batch of intents, turn it into
/// deliveries, deduplicate, send, record one outcome per delivery, wait until Kafka has the
/// outcomes, and only then mark the batch's messages complete so offsets advance at the watermark.
///
/// ``stop()`` drains: the batch in hand is finished, the producer flushed, offsets committed, the
/// consumer closed. An error the worker cannot handle (Redis or Kafka unusable) stops it without
/// completing the batch in hand, which a restart then reads again; ``stop()`` throws it.
public final class Worker: Sendable {
    private let configuration: WorkerConfiguration
    private let enricher: Enricher
    private let sender: APNsSender
    private let stopping = Atomic<Bool>(false)
    private let finished = Semaphore()
    private let failure = Mutex<(any Error)?>(nil)

    public init(configuration: WorkerConfiguration, enricher: Enricher, sender: APNsSender) {
        self.configuration = configuration
        self.enricher = enricher
        self.sender = sender
    }

    /// Starts the worker's thread; call once.
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

    /// Asks the worker to stop after the batch in hand and waits until it has drained and closed.
    /// Blocking: call it from a thread of its own, never from Swift's cooperative pool.
    public func stop() throws {
        stopping.store(true, ordering: .releasing)
        finished.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private func run() throws {
        let acknowledgements = OutputAcknowledgements()
        let producer = try KafkaProducer(configuration: configuration.producer, eventHandler: acknowledgements.record)
        let consumer = try KafkaConsumer(configuration: configuration.consumer)
        let processor = BatchProcessor(configuration: configuration, enricher: enricher, sender: sender,
                                       redis: try RedisConnection(configuration: configuration.redis))
        while !stopping.load(ordering: .acquiring) {
            let batch = consumer.poll(maxMessages: configuration.batchSize, timeout: configuration.pollTimeout)
            guard !batch.isEmpty else { continue }
            let outputs = try processor.process(batch)
            try acknowledgements.wait(for: try producer.send(outputs), timeout: configuration.outputTimeout)
            consumer.complete(batch)
        }
        try producer.close()
        try consumer.commit()
        try consumer.close()
    }
}
