import Foundation

/// The `pushline` command line: finds the command named by the first words, parses its arguments,
/// runs it, and turns errors into messages and exit statuses (0 ok, 1 failed, 2 usage).
@main
enum Pushline {
    /// Every command, in the order `pushline --help` lists them.
    static let commands: [any Command.Type] = [ValidatePayloadCommand.self, JWTCommand.self, DevKafkaCommand.self, BenchKafkaCommand.self]

    static let overview = """
        Usage: pushline <command> [options]

        Pushline delivers Apple push notifications from Kafka intents.

        Commands:
        \(commands.map { "  " + padded($0.name, to: 20) + $0.summary }.joined(separator: "\n"))

        Run "pushline <command> --help" for a command's options.
        """

    static func main() {
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    static func run(_ words: [String]) -> Int32 {
        if words.isEmpty || words == ["--help"] || words == ["-h"] || words == ["help"] {
            print(overview)
            return words.isEmpty ? 2 : 0
        }
        let match = commands
            .map { command in (command, command.name.split(separator: " ").map(String.init)) }
            .filter { words.starts(with: $0.1) }
            .max { $0.1.count < $1.1.count }
        guard let (command, nameWords) = match else {
            printError("pushline: unknown command \"\(words.prefix(2).joined(separator: " "))\"\n\n\(overview)")
            return 2
        }
        do {
            let arguments = try ParsedArguments(words.dropFirst(nameWords.count), spec: command.arguments)
            if arguments.wantsHelp {
                print(command.help)
                return 0
            }
            return try command.run(arguments)
        } catch let error as UsageError {
            printError("pushline \(command.name): \(error.message)\nRun \"pushline \(command.name) --help\" for usage.")
            return 2
        } catch {
            printError("pushline \(command.name): \(error)")
            return 1
        }
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
