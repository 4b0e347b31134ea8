/// A local component that could not start or did not answer in time, with a message that says what
/// is missing (a program not installed names its Debian package).
public struct LocalStackError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
