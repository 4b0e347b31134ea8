import Foundation
import PushlineTestKit
import Testing

/// Runs the built `pushline` executable, as a user would.
func pushline(_ arguments: String...) throws -> CommandResult {
    try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), arguments)
}

/// Runs the built `pushline-dev` executable (the demo, dev-kafka, the benchmarks), as a developer would.
func pushlineDev(_ arguments: String...) throws -> CommandResult {
    try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline-dev"), arguments)
}

/// `pushline-dev bench e2e arguments…` on a thread of its own, killed with the processes it started
/// after `limit`, ten seconds before the thread is given up on: several runs of a debug build,
/// beside the other bench suites, take more than the thread's default 100 s.
func benchE2E(_ arguments: [String], limit: Duration = .seconds(240)) async throws -> CommandResult {
    try await DedicatedThread.run(timeout: limit + .seconds(10)) {
        try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline-dev"), ["bench", "e2e"] + arguments, timeLimit: limit)
    }
}

/// Writes `contents` to a fresh temporary file and returns its path.
func temporaryFile(_ contents: String, name: String = "payload.json") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(contents.utf8).write(to: url)
    return url.path
}

@Suite("pushline")
struct PushlineCommandTests {
    @Test("--help lists every command and exits 0")
    func overviewHelp() throws {
        let result = try pushline("--help")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("validate payload"))
        #expect(result.standardOutput.contains("jwt"))
    }

    @Test("no command prints the overview and exits 2")
    func noCommand() throws {
        let result = try pushline()
        #expect(result.status == 2)
        #expect(result.standardOutput.contains("Usage: pushline <command>"))
    }

    @Test("an unknown command is named in the error")
    func unknownCommand() throws {
        let result = try pushline("frobnicate")
        #expect(result.status == 2)
        #expect(result.standardError.contains("unknown command \"frobnicate\""))
    }

    @Test("every command has --help", arguments: [["pushline", "validate", "payload"], ["pushline", "jwt"], ["pushline", "run"],
                                                  ["pushline-dev", "bench", "redis"], ["pushline-dev", "demo"], ["pushline-dev", "dev-kafka"]])
    func commandHelp(words: [String]) throws {
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable(words[0]), Array(words.dropFirst()) + ["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Usage: \(words.joined(separator: " "))"))
    }

    @Test("the development commands are pushline-dev's, not pushline's")
    func developmentCommandsApart() throws {
        let production = try pushline("--help").standardOutput
        let development = try pushlineDev("--help").standardOutput
        for command in ["demo", "dev-kafka", "bench"] {
            #expect(!production.contains("  \(command)"), "pushline lists \(command)")
            #expect(development.contains("  \(command)"), "pushline-dev does not list \(command)")
        }
        let moved = try pushline("demo")
        #expect(moved.status == 2)
        #expect(moved.standardError.contains("unknown command \"demo\""))
    }

    @Test("a command group lists its commands: --help exits 0, the bare group 2")
    func commandGroup() throws {
        let help = try pushlineDev("bench", "--help")
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("bench sender"))
        #expect(help.standardOutput.contains("bench kafka"))
        #expect(!help.standardOutput.contains("jwt"))
        let bare = try pushline("validate")
        #expect(bare.status == 2)
        #expect(bare.standardError.contains("validate payload"))
        #expect(bare.standardError.contains("validate config"))
    }

    @Test("an unknown option is named in the error, with a pointer to --help")
    func unknownOption() throws {
        let result = try pushline("jwt", "--kee", "x")
        #expect(result.status == 2)
        #expect(result.standardError.contains("pushline jwt: unknown option --kee"))
        #expect(result.standardError.contains("pushline jwt --help"))
    }
}
