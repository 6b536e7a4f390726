import JWTVerify

/// The agreement rule between the fast scanner and jansson, for the differential tests and the
/// fuzz target: whenever ``FlatJSONScanner`` accepts bytes, jansson must accept them with the same
/// members, kinds and values; and reading registered claims must give the same result either way.
package enum JSONDifferential {
    /// Whether the scanner accepted `bytes` (for statistics).
    package static func scannerAccepts(_ bytes: UnsafeRawBufferPointer) -> Bool {
        FlatJSONScanner.withObject(bytes) { _ in true } ?? false
    }

    /// A description of how the two parsers disagree on `bytes`, or `nil` when they agree.
    package static func disagreement(_ bytes: UnsafeRawBufferPointer) -> String? {
        var lookupProblem: String? = nil
        let flat: [([UInt8], JSONValue)]? = FlatJSONScanner.withObject(bytes) { object in
            object.members.map { member in
                let name = Array(bytes[Int(member.nameStart)..<Int(member.nameEnd)])
                let value = FlatJSONValue(
                    base: object.base, kind: member.kind, start: Int(member.valueStart), end: Int(member.valueEnd))
                // Each member is found by its name, through the object's index, as itself.
                let found = name.withUnsafeBytes { object.member(named: $0) }
                if found?.start != value.start || found?.end != value.end {
                    lookupProblem = "lookup of \(String(decoding: name, as: UTF8.self)) found another member"
                }
                return (name, value.value)
            }
        }
        if let lookupProblem { return lookupProblem }
        let jansson = JSONDocument.parse(bytes)
        if let flat {
            guard case .success(let document) = jansson else { return "the scanner accepted what jansson rejects" }
            let problem = document.withRoot { root -> String? in
                guard root.kind == .object, root.memberCount == flat.count else { return "member counts differ" }
                for (name, value) in flat {
                    guard let node = root.member(String(decoding: name, as: UTF8.self)) else {
                        return "jansson lacks member \(String(decoding: name, as: UTF8.self))"
                    }
                    guard node.value == value else {
                        return "values differ for \(String(decoding: name, as: UTF8.self))"
                    }
                }
                return nil
            }
            if let problem { return problem }
        }
        // The claims verdict must not depend on which parser ran.
        let viaParser = JSONObjectParser.parse(bytes, RegisteredClaimsReading())
        let viaJansson: Result<Result<RegisteredClaims, VerificationError>, JSONObjectParser.Problem>
        switch jansson {
        case .failure(let failure): viaJansson = .failure(.invalid(failure.description))
        case .success(let document):
            viaJansson = document.withRoot { root in
                root.kind == .object ? .success(RegisteredClaims.read(root)) : .failure(.notObject)
            }
        }
        switch (viaParser, viaJansson) {
        case (.success(.success(let a)), .success(.success(let b))): return a == b ? nil : "claims differ"
        case (.success(.failure(let a)), .success(.failure(let b))):
            return a.reason == b.reason ? nil : "claim verdicts differ"
        case (.failure, .failure): return nil
        default: return "one parser accepted the object, the other did not"
        }
    }
}
