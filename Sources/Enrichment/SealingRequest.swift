/// A delivery whose template encrypts, waiting for its recipient's key: the plaintext to seal, and
/// where the sealed box goes in the payload. ``PayloadSealer`` finishes it.
public struct SealingRequest: Sendable, Equatable {
    /// The sealed fields as a JSON object.
    let plaintext: [UInt8]
    /// The payload's bytes before the box's base64 (the payload written with a stand-in of the
    /// box's exact length ends with the stand-in, `"` and `}`).
    let prefixCount: Int
    public let withoutKey: MissingKeyRule
    /// The payload to send without a key under ``MissingKeyRule/placeholder``: the placeholder body
    /// and none of the sealed fields.
    let placeholderPayload: [UInt8]?
    /// The push type's payload limit, which the sealed payload must keep.
    let limit: Int
}
