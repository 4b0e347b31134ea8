import CLI
import Kafka
import Pipeline
import Runtime
import Synchronization

/// `pushline tokens publish`: one record on the token records' topic, for the token feed to apply.
enum TokensPublishCommand: Command {
    static let name = "tokens publish"
    static let summary = "publish one token record to the tokens topic, for the token feed"
    static let help = """
        Usage: pushline tokens publish --config FILE [--action register|unregister] --app APP
                                       (--sandbox | --production) --user USER --token HEX [--locale TAG] [--time-zone ZONE] [--at MS]

        Publishes one record (Config/schemas/token-registration-v1.schema.json) to the `tokens.topic`
        of FILE (default pushline.tokens), keyed by the token, through the Kafka of FILE, and waits
        until Kafka has it. A running token feed (`pushline run` with `tokens.enabled`) then applies
        it to the registry. Prints the record and where it went.

        Exit status: 0 when Kafka acknowledged it, 1 when FILE is invalid or Kafka failed or did not
        answer within 30 seconds, 2 on usage errors.

        Options:
          --action ACTION   register (default) or unregister
        \(TokensCommandArguments.deviceHelp)
        """
    static let arguments = TokensCommandArguments.spec(valueOptions: TokensCommandArguments.deviceOptions.union(["--action"]))

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let actionName = arguments.optional("--action") ?? TokenRegistration.Action.register.rawValue
        guard let action = TokenRegistration.Action(rawValue: actionName) else {
            throw UsageError(message: "--action must be register or unregister, got \"\(actionName)\"")
        }
        let registration = try TokensCommandArguments.registration(arguments, action: action)
        guard let configuration = try TokensCommandArguments.configuration(arguments, command: name) else { return 1 }
        let report = Mutex<Result<Int64, KafkaError>?>(nil)
        let arrived = Semaphore()
        let producer = try KafkaProducer(configuration: configuration.kafka.producerConfiguration) { event in
            guard case .deliveryReports(let batch) = event, let first = batch.first else { return }
            report.withLock { $0 = first.result }
            arrived.signal()
        }
        let topic = configuration.tokens.topic
        _ = try producer.send([KafkaProducerMessage(topic: topic, key: registration.key, value: registration.encoded)])
        guard arrived.wait(milliseconds: 30_000), let result = report.withLock({ $0 }) else {
            printError("pushline \(name): Kafka (\(configuration.kafka.bootstrapServers.map(\.description).joined(separator: ","))) "
                + "did not acknowledge the record within 30 seconds")
            return 1
        }
        try producer.close()
        let offset = try result.get()
        print(String(decoding: registration.encoded, as: UTF8.self))
        print("published to \(topic) at offset \(offset)")
        return 0
    }
}
