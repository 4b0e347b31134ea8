import Foundation

/// Where Pushline's shared files are — the schemas, the example configuration, templates, strings and
/// pipelines, the simulator's development key — found from the running executable, never from the
/// working directory. An installed executable (`make install PREFIX=…`: `PREFIX/bin`) reads
/// `PREFIX/share/pushline`; one run from a build (`.build/<config>/`, a test bundle) reads the
/// checkout it was built in (the folder holding Package.swift). Both lay the files out alike:
/// `Config/…`, `Pipelines/…`.
public enum SharedFiles {
    /// The installed shared folder, from the executable's folder.
    public static let installedFolder = "../share/pushline"

    /// The folder the files are read from.
    public static let root: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let installed = folder.appendingPathComponent(installedFolder).standardizedFileURL
        if FileManager.default.fileExists(atPath: installed.appendingPathComponent("Config").path) { return installed.path }
        var checkout = folder
        while checkout.path != "/" {
            if FileManager.default.fileExists(atPath: checkout.appendingPathComponent("Package.swift").path) { return checkout.path }
            checkout.deleteLastPathComponent()
        }
        // Neither: paths name the installed place, so an error about a missing file says where it was looked for.
        return installed.path
    }()

    /// A shared file, by its path from ``root`` (e.g. `Config/templates`).
    public static func path(_ relativePath: String) -> String {
        "\(root)/\(relativePath)"
    }
}
