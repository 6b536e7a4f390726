/// A chunk's signatures grouped by what checks them: the signature stage's plan.
///
/// Each token comes with its engine, chosen by the key
/// (``EVPPublicKey/signatureEngine(for:signatureLength:)``, the single-token path's choice too);
/// the plan only groups: ES256 signatures whose keys have fixed-base tables go into one call
/// (one modular inversion for all), RS256/RS384/RS512 signatures the multi-buffer engine takes
/// into calls of up to eight lanes of one modulus size, and everything else is checked alone. A
/// size with fewer than ``MultiBufferEngine/minimumLanes`` signatures left over is checked alone
/// too: below that the key's own chain is cheaper than a call. Grouping never changes a verdict;
/// each depends on its own token only.
///
/// A value: the stage fills it from its tokens and runs it. Its arrays keep their capacity from
/// chunk to chunk in the thread's ``BatchWorkspace``, so planning allocates nothing once warm.
struct SignaturePlan {
    /// One token in the plan: its position in the chunk and its engine.
    struct Member {
        /// The token's position in the chunk.
        let position: Int
        /// What checks its signature.
        let engine: SignatureEngine
    }

    /// The modulus sizes the multi-buffer engine takes, one lane list each.
    static let laneSizes = [1024, 2048, 3072, 4096]
    /// The most signatures one multi-buffer call takes.
    static let lanesPerCall = 8

    /// Signatures checked one at a time, each by its own engine.
    private(set) var alone: [Member] = []
    /// ES256 signatures checked together through their keys' fixed-base tables.
    private(set) var fixedBase: [Member] = []
    /// RS* signatures for the multi-buffer engine, one list per size of ``laneSizes``.
    private(set) var lanes: [[Member]] = laneSizes.map { _ in [] }

    /// An empty plan.
    init() {}

    /// Empties the plan for the next chunk, keeping its room.
    mutating func removeAll() {
        alone.removeAll(keepingCapacity: true)
        fixedBase.removeAll(keepingCapacity: true)
        for size in lanes.indices { lanes[size].removeAll(keepingCapacity: true) }
    }

    /// Adds the token at `position`, whose signature `engine` checks, to the group its engine's
    /// batch call says.
    mutating func add(_ position: Int, engine: SignatureEngine) {
        let member = Member(position: position, engine: engine)
        switch engine.batchCall {
        case .alone:
            alone.append(member)
        case .fixedBaseP256:
            fixedBase.append(member)
        case .multiBuffer(let bits):
            guard let size = Self.laneSizes.firstIndex(of: bits) else { return alone.append(member) }
            lanes[size].append(member)
        }
    }

    /// Ends the plan once every token is in: each size's rest after full calls of eight, when
    /// fewer than ``MultiBufferEngine/minimumLanes``, moves to ``alone``; and when calls remain but
    /// the engine is not ready (``MultiBufferEngine/isReady``: the first such plan starts the
    /// search for it), every lane moves to ``alone``, checked by its key's own chain.
    mutating func seal() {
        var calls = false
        for size in lanes.indices {
            let rest = lanes[size].count % Self.lanesPerCall
            if rest > 0, rest < MultiBufferEngine.minimumLanes {
                alone.append(contentsOf: lanes[size].suffix(rest))
                lanes[size].removeLast(rest)
            }
            calls = calls || !lanes[size].isEmpty
        }
        guard calls, !MultiBufferEngine.isReady else { return }
        for size in lanes.indices {
            alone.append(contentsOf: lanes[size])
            lanes[size].removeAll(keepingCapacity: true)
        }
    }

    /// Each multi-buffer call of the sealed plan: its modulus size and its members, up to eight.
    func forEachLaneCall(_ body: (_ bits: Int, _ members: ArraySlice<Member>) -> Void) {
        for size in lanes.indices {
            var start = 0
            while start < lanes[size].count {
                let end = min(start + Self.lanesPerCall, lanes[size].count)
                body(Self.laneSizes[size], lanes[size][start..<end])
                start = end
            }
        }
    }
}
