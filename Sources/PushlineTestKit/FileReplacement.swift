import Foundation

/// Replaces `file` with `contents` in one step a watcher sees as one event: the contents are
/// written whole beside the file's directory (in its parent, which is not watched), then renamed
/// over it. A write in place, or Foundation's `.atomic` write (a temporary file created in the
/// same directory, then renamed), is several events, and a reload started by the first may read
/// the file before it changed.
public func replaceInOneRename(_ file: URL, with contents: String) throws {
    let directory = file.deletingLastPathComponent()
    let staged = directory.deletingLastPathComponent()
        .appendingPathComponent(".\(directory.lastPathComponent)-\(file.lastPathComponent)-\(UUID().uuidString)")
    try Data(contents.utf8).write(to: staged)
    guard rename(staged.path, file.path) == 0 else {
        let error = errno
        try? FileManager.default.removeItem(at: staged)
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO)])
    }
}
