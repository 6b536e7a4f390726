internal import CRSAMontgomery

/// The signature stage's multi-buffer lanes: RS256, RS384 and RS512 signatures of one modulus
/// size, eight to a call of ``MultiBufferEngine``, each lane's verdict its own.
extension Verifier {
    /// The modulus size, when `prepared` is an RS256, RS384 or RS512 token whose key the
    /// multi-buffer engine takes and whose signature has the modulus's length.
    func multiBufferLanes(for prepared: UnsafePointer<PreparedToken>) -> Int? {
        guard MultiBufferEngine.digestKind(prepared.pointee.header.algorithm) != nil,
            let key = signingKey(of: prepared.pointee),
            let montgomery = key._withUnsafeGuaranteedRef({ $0.montgomeryChain }),
            let bits = MultiBufferEngine.lanes(for: montgomery),
            prepared.pointee.signatureRange.count == bits / 8
        else { return nil }
        return bits
    }

    /// The RS* tokens at `members` through the multi-buffer engine: by modulus size, eight to a
    /// call; a size with fewer than ``MultiBufferEngine/minimumLanes`` tokens left goes through
    /// each key's own chain.
    func checkRSALanes(
        _ tokens: UnsafeMutablePointer<PreparedToken>, _ members: UnsafeMutableBufferPointer<Int>,
        sizes: UnsafeMutableBufferPointer<Int>,
        contexts: ThreadContexts, fingerprints: Bool
    ) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: members.count) { group in
            for bits in [1024, 2048, 3072, 4096] {
                var count = 0
                for index in members where sizes[index] == bits {
                    group[count] = index
                    count += 1
                }
                var start = 0
                while start < count {
                    let lanes = min(8, count - start)
                    if lanes < MultiBufferEngine.minimumLanes {
                        for i in start..<count { checkSignature(&tokens[group[i]], fingerprint: fingerprints) }
                        break
                    }
                    verifyLanes(
                        tokens, UnsafeBufferPointer(rebasing: group[start..<(start + lanes)]), bits: bits,
                        contexts: contexts, fingerprints: fingerprints)
                    start += lanes
                }
            }
        }
    }

    /// One call of the multi-buffer engine: up to eight RS* tokens whose keys have `bits`-bit moduli.
    private func verifyLanes(
        _ tokens: UnsafeMutablePointer<PreparedToken>, _ lanes: UnsafeBufferPointer<Int>, bits: Int,
        contexts: ThreadContexts, fingerprints: Bool
    ) {
        withUnsafeTemporaryAllocation(byteCount: 8 * 64, alignment: 8) { digests in
            withUnsafeTemporaryAllocation(of: OpaquePointer?.self, capacity: 8) { montgomeryChains in
                withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: 16) { pointers in
                    withUnsafeTemporaryAllocation(of: jwtv_rsa_digest.self, capacity: 8) { kinds in
                        withUnsafeTemporaryAllocation(of: Int.self, capacity: 8) { lengths in
                            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8) { valid in
                                for lane in 0..<8 {
                                    montgomeryChains[lane] = nil
                                    pointers[lane] = nil
                                    pointers[8 + lane] = nil
                                    kinds[lane] = JWTV_RSA_SHA256
                                    lengths[lane] = 0
                                    guard lane < lanes.count else { continue }
                                    let token = tokens + lanes[lane]
                                    let algorithm = token.pointee.header.algorithm
                                    let digest = UnsafeMutableRawBufferPointer(
                                        rebasing: digests[(lane * 64)..<(lane * 64 + 64)])
                                    if fingerprints && algorithm.hashesWithSHA256 {
                                        hashSigningInput(&token.pointee, into: digest, contexts: contexts)
                                        lengths[lane] = 32
                                    } else {
                                        lengths[lane] = algorithm.unretainedDigest!._withUnsafeGuaranteedRef {
                                            contexts.hash(token.pointee.signingInput, with: $0, into: digest)
                                        }
                                    }
                                    montgomeryChains[lane] = signingKey(of: token.pointee)!._withUnsafeGuaranteedRef {
                                        $0.montgomeryChain
                                    }
                                    pointers[lane] = token.pointee.signature.baseAddress
                                    pointers[8 + lane] = UnsafeRawPointer(digest.baseAddress!)
                                    kinds[lane] = MultiBufferEngine.digestKind(algorithm)!
                                }
                                MultiBufferEngine.verify8(
                                    keys: montgomeryChains.baseAddress!, signatures: pointers.baseAddress!,
                                    kinds: kinds.baseAddress!,
                                    digests: pointers.baseAddress! + 8, digestLengths: lengths.baseAddress!, bits: bits,
                                    valid: valid.baseAddress!)
                                for lane in 0..<lanes.count { settle(&tokens[lanes[lane]], valid: valid[lane] == 1) }
                            }
                        }
                    }
                }
            }
        }
    }
}
