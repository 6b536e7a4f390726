#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ES256 verdicts one thread decided ahead, in batches, for the tokens it is about to evaluate
/// (``Verifier/withPresolvedSignatures(_:_:)``).
///
/// A verdict is found by what it is a verdict on: the key's process-unique id, the 32-octet digest
/// of the signing input and the 64-octet signature. The walk computes all three itself before it
/// asks, so a verdict can only ever answer the very check it was made for; a token not presolved,
/// or altered since, is simply verified on the spot.
struct PresolvedSignatures {
    private static let stride = 96
    private var keyIDs: [UInt64] = []
    private var material: [UInt8] = []  // per entry: digest ‖ signature
    private var verdicts: [Bool] = []
    private var cursor = 0

    var isEmpty: Bool { keyIDs.isEmpty }

    mutating func append(keyID: UInt64, material entry: UnsafeRawBufferPointer, valid: Bool) {
        precondition(entry.count == Self.stride)
        keyIDs.append(keyID)
        material.append(contentsOf: entry)
        verdicts.append(valid)
    }

    /// The verdict made for exactly this key, digest and signature, if one was.
    mutating func verdict(keyID: UInt64, digest: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer) -> Bool? {
        guard digest.count == 32, signature.count == 64 else { return nil }
        let count = keyIDs.count
        // Tokens are evaluated in the order they were presolved: the next one is almost always
        // at the cursor.
        for step in 0..<count {
            let index = (cursor + step) % count
            guard keyIDs[index] == keyID else { continue }
            let same = material.withUnsafeBytes { all in
                let entry = all.baseAddress! + index * Self.stride
                return memcmp(entry, digest.baseAddress!, 32) == 0 && memcmp(entry + 32, signature.baseAddress!, 64) == 0
            }
            if same {
                cursor = index + 1
                return verdicts[index]
            }
        }
        return nil
    }

    mutating func removeAll() {
        keyIDs.removeAll(keepingCapacity: true)
        material.removeAll(keepingCapacity: true)
        verdicts.removeAll(keepingCapacity: true)
        cursor = 0
    }
}
