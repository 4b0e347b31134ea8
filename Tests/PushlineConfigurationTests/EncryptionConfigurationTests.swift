import PushlineConfiguration
import PushlineTestKit
import Testing

@Suite("The encryption section")
struct EncryptionConfigurationTests {
    @Test("without the section there is no key-encryption key")
    func defaults() throws {
        let encryption = try ConfigurationFixture().load().encryption
        #expect(encryption.keyEncryptionKeyFile == nil && encryption.keyEncryptionKey == nil)
    }

    @Test("kek_file resolves against the file's folder; PUSHLINE_ENCRYPTION_KEK is a secret that never prints")
    func fileAndVariable() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nencryption:\n  kek_file: kek.bin\n")
        try fixture.write(String(repeating: "k", count: 32), to: "kek.bin")
        #expect(try fixture.load().encryption.keyEncryptionKeyFile == "\(fixture.directory)/kek.bin")
        let fromVariable = try ConfigurationFixture().load(environment: ["PUSHLINE_ENCRYPTION_KEK": "c2VjcmV0"]).encryption
        #expect(fromVariable.keyEncryptionKey?.value == "c2VjcmV0")
        #expect(!"\(fromVariable) \(String(describing: fromVariable.keyEncryptionKey))".contains("c2VjcmV0"))
    }

    @Test("a key written in the file, a missing file and both sources at once are errors with file, line and key")
    func problemsAreReported() throws {
        let inline = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nencryption:\n  kek: c2VjcmV0\n")
        let inlineErrors = inline.errors()
        #expect(inlineErrors.map(\.code) == [.inlineSecret])
        #expect(inlineErrors.map(\.key) == ["encryption.kek"])
        #expect(!inlineErrors.description.contains("c2VjcmV0"))
        let missing = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nencryption:\n  kek_file: nowhere.bin\n")
        #expect(missing.errors().map(\.code) == [.missingFile])
        let both = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nencryption:\n  kek_file: kek.bin\n")
        try both.write("x", to: "kek.bin")
        #expect(both.errors(environment: ["PUSHLINE_ENCRYPTION_KEK": "c2VjcmV0"]).map(\.key) == ["encryption.kek_file"])
    }
}
