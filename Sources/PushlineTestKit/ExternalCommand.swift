import Foundation
import Synchronization

/// The result of running a program to completion.
public struct CommandResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
}

/// Runs programs for tests: independent tools (`openssl`) and Pushline's own executables.
public enum ExternalCommand {
    /// Runs `executable` with `arguments` and waits for it. Throws when it cannot be started, with a
    /// message naming the program, so a missing tool fails the test clearly instead of skipping it.
    /// `environment` adds to (or replaces in) this process's environment.
    public static func run(_ executable: String, _ arguments: [String], standardInput: Data? = nil,
                           environment: [String: String] = [:]) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let output = Pipe()
        let error = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        do {
            try process.run()
        } catch {
            throw TestKitError("cannot start \(executable): \(error)")
        }
        if let standardInput { input.fileHandleForWriting.write(standardInput) }
        try? input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        let errorData = Mutex(Data())
        let errorRead = DispatchGroup()
        DispatchQueue.global().async(group: errorRead) {
            let data = error.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.withLock { $0 }, as: UTF8.self)
        )
    }

    /// The absolute path of a program on `PATH`, or a thrown error naming the Debian package to install.
    public static func locate(_ program: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw TestKitError("\(program) is not installed (Debian package \(package)); run `make test`, which installs it")
    }
}

/// A test-support failure with a message that says what is missing.
public struct TestKitError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
