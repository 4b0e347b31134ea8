import APNsCore
import Testing

/// Spec §1.2: a device token is hexadecimal bytes; Apple says never to assume its size.
@Suite("DeviceToken")
struct DeviceTokenTests {
    @Test("an empty token is MissingDeviceToken")
    func emptyTokenIsMissing() {
        let violation = #expect(throws: Violation.self) { try DeviceToken("") }
        #expect(violation?.reason == .missingDeviceToken)
    }

    @Test("a token with a non-hex character is BadDeviceToken",
          arguments: ["zz", "0g", "a1b2 c3d4", "a1b2-c3d4", "0x1f", "a1b2c3d4\n", "é0", "０１"])
    func nonHexIsBad(token: String) {
        let violation = #expect(throws: Violation.self) { try DeviceToken(token) }
        #expect(violation?.reason == .badDeviceToken)
    }

    @Test("the detail names the first non-hex character")
    func nonHexDetailNamesCharacter() {
        let violation = #expect(throws: Violation.self) { try DeviceToken("abzd") }
        #expect(violation?.detail.contains("'z'") == true)
    }

    @Test("an odd number of hex digits is BadDeviceToken", arguments: ["a", "abc", String(repeating: "a", count: 63)])
    func oddLengthIsBad(token: String) {
        let violation = #expect(throws: Violation.self) { try DeviceToken(token) }
        #expect(violation?.reason == .badDeviceToken)
    }

    @Test("any even length of hex is accepted, not only 64",
          arguments: [2, 32, 64, 66, 160, 200])
    func evenLengthHexIsAccepted(length: Int) throws {
        let hex = String(String(repeating: "0123456789abcdef", count: 13).prefix(length))
        let token = try DeviceToken(hex)
        #expect(token.hex == hex)
        #expect(token.hex.count == length)
    }

    @Test("upper-case hex is normalised to lower case")
    func upperCaseIsLowered() throws {
        let token = try DeviceToken("A1B2C3D4E5F6")
        #expect(token.hex == "a1b2c3d4e5f6")
        #expect(token.description == "a1b2c3d4e5f6")
        #expect(token == (try DeviceToken("a1b2c3d4e5f6")))
    }

    @Test("the redacted form shows only the last eight characters")
    func redactedShowsLastEight() throws {
        let token = try DeviceToken(Fixture.deviceToken)
        #expect(token.redacted == "…a1b2c3d4")
        #expect(!token.redacted.contains(Fixture.deviceToken))
    }
}

/// Spec §1.3: `apns-collapse-id` is at most 64 bytes.
@Suite("CollapseID")
struct CollapseIDTests {
    @Test("64 bytes are accepted", arguments: [
        String(repeating: "c", count: 64),
        String(repeating: "é", count: 32),
        String(repeating: "😀", count: 16),
    ])
    func sixtyFourBytesAccepted(value: String) throws {
        #expect(value.utf8.count == 64)
        #expect(try CollapseID(value).value == value)
    }

    @Test("65 bytes are BadCollapseId, however few characters", arguments: [
        String(repeating: "c", count: 65),
        String(repeating: "é", count: 32) + "x",
        String(repeating: "😀", count: 16) + "x",
        String(repeating: "日", count: 21) + "xx",
    ])
    func sixtyFiveBytesRejected(value: String) {
        #expect(value.utf8.count == 65)
        let violation = #expect(throws: Violation.self) { try CollapseID(value) }
        #expect(violation?.reason == .badCollapseID)
    }

    @Test("a collapse id of 33 characters can already be too long in bytes")
    func characterCountDoesNotDecide() {
        let value = String(repeating: "é", count: 33)
        #expect(value.count == 33)
        #expect(throws: Violation.self) { try CollapseID(value) }
    }
}
