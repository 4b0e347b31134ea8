import CLI

/// The `pushline` command line.
@main
enum Pushline {
    static let tool = CommandLineTool(
        name: "pushline",
        summary: "Pushline delivers Apple push notifications from Kafka intents.",
        commands: [ValidatePayloadCommand.self, ValidateConfigCommand.self, JWTCommand.self, SendCommand.self, RenderCommand.self,
                   DevKafkaCommand.self, BenchEnrichmentCommand.self, BenchSenderCommand.self, BenchKafkaCommand.self,
                   BenchRedisCommand.self, BenchE2ECommand.self, BenchFaultsCommand.self, RunCommand.self, DemoCommand.self,
                   TokensRegisterCommand.self, TokensUnregisterCommand.self, TokensListCommand.self, TokensPublishCommand.self,
                   OutcomesReportCommand.self, OutcomesExportCommand.self, DLQReplayCommand.self,
                   KeysRegisterCommand.self]
    )

    static func main() {
        tool.main()
    }
}
