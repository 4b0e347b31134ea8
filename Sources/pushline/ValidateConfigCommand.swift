import CLI
import Foundation
import PushlineConfiguration

/// `pushline validate config`: loads the worker settings and pipelines as `pushline run` would, with
/// the `PUSHLINE_…` environment applied, and reports every problem.
enum ValidateConfigCommand: Command {
    static let name = "validate config"
    static let summary = "check the worker settings and pipelines, with PUSHLINE_… variables applied"
    static let help = """
        Usage: pushline validate config FILE [--pipelines DIR]

        Loads FILE (worker settings: kafka, redis, apns, telemetry, dedupe, shutdown, tokens) and every
        *.yaml pipeline in DIR, applies the PUSHLINE_… environment variables over them, and checks
        everything a worker would: unknown keys and variables, types and ranges, that credential
        files exist and hold usable keys, that no secret is written in a file, and that every
        pool and credentials entry referred to exists.

        Prints "valid" and a summary (never a secret) and exits 0, or prints one line per problem,
        "FILE:LINE: KEY: message", and exits 1. Usage errors exit 2. The format and the variables
        are documented in docs/configuration.md.

        Options:
          --pipelines DIR   the pipeline definitions (default: FILE's `pipelines` setting, else Pipelines)
          -h, --help        show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--pipelines"], positionalNames: ["FILE"])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let configuration: PushlineConfiguration
        do {
            configuration = try PushlineConfiguration.load(
                file: arguments.positionals[0], pipelinesDirectory: arguments.optional("--pipelines"),
                environment: ProcessInfo.processInfo.environment)
        } catch {
            for problem in error.errors { print(problem) }
            return 1
        }
        print("valid")
        print("kafka: \(configuration.kafka)")
        print(configuration.redis)
        for (name, credentials) in configuration.apns.credentials.sorted(by: { $0.key < $1.key }) {
            print("apns credentials \(name): \(credentials)")
        }
        for pool in configuration.apns.pools { print("apns pool \(pool)") }
        print("apns delivery: \(configuration.apns.delivery)")
        print("telemetry: \(configuration.telemetry)")
        print("dedupe: \(configuration.dedupe)")
        print("shutdown: \(configuration.shutdown)")
        print("tokens: \(configuration.tokens)")
        for pipeline in configuration.pipelines { print("pipeline \(pipeline)") }
        return 0
    }
}
