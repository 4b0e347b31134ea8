import APNsCore
import TLS

/// The last stage of enrichment, once the recipient's key is known: the fields a template
/// encrypts sealed with AES-256-GCM into the payload's `e2e` key (base64 of CryptoKit's
/// `AES.GCM.SealedBox.combined`), the key's id and version beside it in `e2e_kid` and `e2e_kv`.
/// docs/service-extension.md describes the payload and the Swift code that opens it.
public enum PayloadSealer {
    /// What follows the box's base64: the key id's member, then the version's (made once, not
    /// interpolated per delivery).
    private static let keyIDMember = Array("\",\"\(ServiceExtensionTemplate.PayloadKey.keyID)\":".utf8)
    private static let keyVersionMember = Array(",\"\(ServiceExtensionTemplate.PayloadKey.keyVersion)\":".utf8)

    /// `delivery` ready to send: sealed under `key`; without a key, the placeholder payload or
    /// `MissingEncryptionKey` as the template says. A delivery with nothing to seal is returned as
    /// it is. `nonce`: 12 bytes from the CSPRNG that no other seal uses, drawn for a whole batch
    /// at once (``randomNonces(_:)``); nil draws one for this seal.
    public static func seal(_ delivery: Delivery, with key: EncryptionKey?, nonce: ArraySlice<UInt8>? = nil) throws(EnrichmentError) -> Delivery {
        guard let request = delivery.sealing else { return delivery }
        guard let key else {
            guard request.withoutKey == .placeholder, let placeholder = request.placeholderPayload else {
                throw EnrichmentError(.missingEncryptionKey, "the template encrypts and no key is registered for the device or its user")
            }
            return delivery.replacingPayload(placeholder)
        }
        var payload = [UInt8]()
        payload.reserveCapacity(request.prefixCount + ServiceExtensionContent.standInCount(plaintextCount: request.plaintext.count)
            + ServiceExtensionContent.keyFieldsReserve)
        payload.append(contentsOf: delivery.payload[..<request.prefixCount])
        do {
            // The box goes straight from its temporary buffer into the payload as base64.
            try key.cipher.withSealedBox(request.plaintext, nonce: nonce) { Base64.append($0, to: &payload) }
        } catch {
            throw EnrichmentError(.encryptionFailed, "sealing with \(key): \(error.reason)")
        }
        payload.append(contentsOf: keyIDMember)
        JSONWriter.appendString(key.id, to: &payload)
        payload.append(contentsOf: keyVersionMember)
        JSONWriter.appendInteger(key.version, to: &payload)
        payload.append(UInt8(ascii: "}"))
        guard payload.count <= request.limit else {
            throw EnrichmentError(.payloadTooLarge, "the sealed payload is \(payload.count) bytes; the limit is \(request.limit)")
        }
        return delivery.replacingPayload(payload)
    }

    /// `count` nonces from one `RAND_bytes` call, 12 bytes each, one after the other; nil when the
    /// CSPRNG fails (each seal then draws its own and reports the failure). One call per batch:
    /// OpenSSL's DRBG costs about as much per request as sealing a notification (it re-keys after
    /// every request), and a nonce per seal made it a request per delivery.
    public static func randomNonces(_ count: Int) -> [UInt8]? {
        try? AES256GCM.randomBytes(AES256GCM.nonceByteCount * count)
    }

    /// The `index`th nonce of ``randomNonces(_:)``.
    public static func nonce(_ index: Int, of nonces: [UInt8]) -> ArraySlice<UInt8> {
        nonces[(index * AES256GCM.nonceByteCount)..<((index + 1) * AES256GCM.nonceByteCount)]
    }
}
