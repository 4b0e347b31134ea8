import CLI
import TLS

/// The `pushline` command line.
@main
enum Pushline {
    static let tool = CommandLineTool(
        name: "pushline",
        summary: "Pushline delivers Apple push notifications from Kafka intents.",
        // The demo, dev-kafka and the benchmarks are `pushline-dev`'s: this binary links no simulator,
        // local stack or benchmark.
        commands: [ValidatePayloadCommand.self, ValidateConfigCommand.self, JWTCommand.self, SendCommand.self, RenderCommand.self,
                   RunCommand.self, TokensRegisterCommand.self, TokensUnregisterCommand.self, TokensListCommand.self, TokensPublishCommand.self,
                   OutcomesReportCommand.self, OutcomesExportCommand.self, DLQReplayCommand.self,
                   KeysRegisterCommand.self]
    )

    static func main() {
        // A worker's stop leaves none of its threads or tasks running (docs/worker.md, "Stopping"), and
        // every way out of `pushline run` that runs the clean-up at exit stops its senders' loops first
        // (exit 3, a stop past its limit, is `_exit`: no clean-up); librdkafka's threads were not looked into.
        OpenSSLCleanupAtExit.disable()
        tool.main()
    }
}
