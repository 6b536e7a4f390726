extension Verifier {
    /// Runs `body` with the ES256 signatures of the tokens `collect` adds already verified, in
    /// batches that share one modular inversion (``FixedBaseP256Key/verify(_:valid:)``); for the
    /// batch faces (the CLI's runner, the benchmark, `serve`).
    ///
    /// Nothing else changes: `body` evaluates each token exactly as without the batch, through the
    /// same walk, and where the walk reaches the signature it takes the verdict made for exactly
    /// this key, digest and signature, or verifies on the spot when there is none. Only tokens
    /// whose header names an ES256 key that has its fixed-base table, and that are not in the
    /// verified-token cache, are presolved. The verdicts are this thread's and end with `body`.
    package func withPresolvedSignatures<R>(_ collect: (inout SignatureBatch) -> Void, _ body: () throws -> R) rethrows -> R {
        guard hasP256Keys else { return try body() }
        let contexts = ThreadContexts.current
        let outer = contexts.presolved
        contexts.presolved = PresolvedSignatures()
        defer { contexts.presolved = outer }
        var batch = SignatureBatch(verifier: self, contexts: contexts)
        collect(&batch)
        batch.flush()
        return try body()
    }

    /// Steps 1–8 without the signature, for a presolved batch: the key and the ES256 signature a
    /// token's walk will check, when they qualify for the fixed-base path.
    fileprivate func fixedBaseCheck(
        _ token: UnsafeRawBufferPointer, signatureInto output: UnsafeMutableRawBufferPointer
    ) -> (key: EVPPublicKey, table: FixedBaseP256Key, jws: CompactJWS)? {
        guard token.count <= policy.maxTokenBytes, case .success(let jws) = CompactJWS.split(token), jws.signature.count == 86 else {
            return nil
        }
        if let cache, token.count <= cache.configuration.maxTokenBytes, cache.contains(token, hash: cache.hash(token)) {
            return nil
        }
        let header: JOSEHeader? = withUnsafeTemporaryAllocation(byteCount: max(jws.header.count, 1), alignment: 8) { scratch in
            guard let length = Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[jws.header]), into: scratch),
                case .success(let read) = JSONObjectParser.parse(
                    UnsafeRawBufferPointer(rebasing: scratch[..<length]), HeaderReading(allowList: allowList)),
                case .success(let header) = read.header
            else { return nil }
            return header
        }
        guard let header, header.algorithm == .es256, case .success(let index) = keyIndex(for: header),
            let key = keys.slots[index].key?.takeUnretainedValue(), let table = key.fixedBase,
            Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[jws.signature]), into: output) == 64
        else { return nil }
        return (key, table, jws)
    }
}

/// The ES256 signatures gathered for ``Verifier/withPresolvedSignatures(_:_:)``, verified
/// ``FixedBaseP256Key/batchLimit`` at a time.
package struct SignatureBatch: ~Copyable {
    private let verifier: Verifier
    private let contexts: ThreadContexts
    private var keys: [EVPPublicKey] = []
    private var tables: [FixedBaseP256Key] = []
    /// Per pending entry: digest ‖ signature (96 octets).
    private var material: [UInt8]

    fileprivate init(verifier: Verifier, contexts: ThreadContexts) {
        self.verifier = verifier
        self.contexts = contexts
        self.material = [UInt8](repeating: 0, count: FixedBaseP256Key.batchLimit * 96)
        keys.reserveCapacity(FixedBaseP256Key.batchLimit)
        tables.reserveCapacity(FixedBaseP256Key.batchLimit)
    }

    /// Adds a token the scope's body will evaluate; tokens that do not qualify are ignored.
    package mutating func add(_ token: UnsafeRawBufferPointer) {
        let slot = keys.count * 96
        let found = material.withUnsafeMutableBytes { all -> (key: EVPPublicKey, table: FixedBaseP256Key)? in
            let entry = UnsafeMutableRawBufferPointer(rebasing: all[slot..<(slot + 96)])
            guard let check = verifier.fixedBaseCheck(token, signatureInto: UnsafeMutableRawBufferPointer(rebasing: entry[32...]))
            else { return nil }
            _ = contexts.hash(
                UnsafeRawBufferPointer(rebasing: token[check.jws.signingInput]), with: MessageDigest.sha256,
                into: UnsafeMutableRawBufferPointer(rebasing: entry[..<32]))
            return (check.key, check.table)
        }
        guard let found else { return }
        keys.append(found.key)
        tables.append(found.table)
        if keys.count == FixedBaseP256Key.batchLimit { flush() }
    }

    /// Verifies what is pending and records the verdicts for the scope.
    mutating func flush() {
        guard !keys.isEmpty else { return }
        let count = keys.count
        material.withUnsafeBytes { all in
            withUnsafeTemporaryAllocation(of: FixedBaseP256Key.BatchEntry.self, capacity: count) { entries in
                for i in 0..<count {
                    let base = all.baseAddress! + i * 96
                    entries.initializeElement(at: i, to: .init(key: tables[i], digest: base, signature: base + 32))
                }
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { valid in
                    FixedBaseP256Key.verify(UnsafeBufferPointer(entries), valid: valid)
                    for i in 0..<count {
                        contexts.presolved.append(
                            keyID: keys[i].id, material: UnsafeRawBufferPointer(rebasing: all[(i * 96)..<(i * 96 + 96)]), valid: valid[i] == 1)
                    }
                }
                entries.deinitialize()
            }
        }
        keys.removeAll(keepingCapacity: true)
        tables.removeAll(keepingCapacity: true)
    }
}
