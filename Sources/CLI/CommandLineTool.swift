import Foundation

/// An executable's command line: finds the command named by the first words, parses its arguments,
/// runs it, and turns errors into messages and exit statuses (0 ok, 1 failed, 2 usage).
public struct CommandLineTool: Sendable {
    /// The program name, as users type it.
    public let name: String
    /// One sentence for the overview.
    public let summary: String
    /// The commands, in the order the overview lists them. A tool with one command whose name is
    /// empty has no sub-commands: its arguments follow the program name directly.
    public let commands: [any Command.Type]

    public init(name: String, summary: String, commands: [any Command.Type]) {
        self.name = name
        self.summary = summary
        self.commands = commands
    }

    /// Parses and runs, then exits the process with the command's status.
    public func main() -> Never {
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    public var overview: String {
        """
        Usage: \(name) <command> [options]

        \(summary)

        Commands:
        \(commands.map { "  " + Self.padded($0.name, to: 20) + $0.summary }.joined(separator: "\n"))

        Run "\(name) <command> --help" for a command's options.
        """
    }

    /// Runs the command that `words` name and returns the exit status.
    public func run(_ words: [String]) -> Int32 {
        let hasSubcommands = !(commands.count == 1 && commands[0].name.isEmpty)
        if hasSubcommands && (words.isEmpty || words == ["--help"] || words == ["-h"] || words == ["help"]) {
            print(overview)
            return words.isEmpty ? 2 : 0
        }
        let match = commands
            .map { command in (command, command.name.split(separator: " ").map(String.init)) }
            .filter { words.starts(with: $0.1) }
            .max { $0.1.count < $1.1.count }
        guard let (command, nameWords) = match else {
            return group(words)
        }
        let fullName = command.name.isEmpty ? name : "\(name) \(command.name)"
        do {
            let arguments = try ParsedArguments(words.dropFirst(nameWords.count), spec: command.arguments)
            if arguments.wantsHelp {
                print(command.help)
                return 0
            }
            return try command.run(arguments)
        } catch let error as UsageError {
            printError("\(fullName): \(error.message)\nRun \"\(fullName) --help\" for usage.")
            return 2
        } catch {
            printError("\(fullName): \(error)")
            return 1
        }
    }

    /// `pushline-dev bench` or `pushline-dev bench --help`: the commands that start with those words.
    private func group(_ words: [String]) -> Int32 {
        let asksHelp = words.last == "--help" || words.last == "-h"
        let prefix = asksHelp ? Array(words.dropLast()) : words
        let members = commands.filter { !prefix.isEmpty && $0.name.split(separator: " ").map(String.init).starts(with: prefix) }
        guard !members.isEmpty else {
            printError("\(name): unknown command \"\(words.prefix(2).joined(separator: " "))\"\n\n\(overview)")
            return 2
        }
        let list = members.map { "  " + Self.padded($0.name, to: 20) + $0.summary }.joined(separator: "\n")
        let text = "Usage: \(name) \(prefix.joined(separator: " ")) <command> [options]\n\nCommands:\n\(list)\n\n"
            + "Run \"\(name) <command> --help\" for a command's options."
        if asksHelp {
            print(text)
            return 0
        }
        printError(text)
        return 2
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

/// Writes a line to standard error.
public func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
