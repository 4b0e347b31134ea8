import Foundation

/// Reads a whole file for a command, turning failures into a message that names the file.
public func readFile(_ path: String, purpose: String) throws(UsageError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        let reason = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "no such file"
        throw UsageError(message: "cannot read \(purpose) \"\(path)\": \(reason)")
    }
    return [UInt8](data)
}
