import Foundation

/// Paths inside the repository and the build, for tests, which run from a checkout (`#filePath`
/// names this file's place in it), and the executables beside the running one, for the
/// benchmarks' subprocesses. What the demo and the benchmarks read comes from `SharedFiles` (Runtime),
/// which also finds an installed copy.
public enum RepositoryPaths {
    /// The repository's top folder (where Package.swift is).
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// A file in the repository, by its path from the top.
    public static func file(_ relativePath: String) -> String {
        root.appendingPathComponent(relativePath).path
    }

    /// An executable product built beside the running program — a test bundle or `pushline` itself
    /// (`.build/<config>/<name>`).
    public static func builtExecutable(_ name: String) throws -> String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // Swift Testing may run from inside the .xctest bundle; walk up to the products folder.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw LocalStackError("the \(name) executable was not built beside \(testBinary.path); build it with `swift build --product \(name)`")
    }
}
