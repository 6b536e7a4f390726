/// Tokens to verify together, each with the raw nonce it must match: a buffer the caller owns,
/// fills, hands to ``Verifier/verify(_:at:)`` and reuses.
///
/// The tokens' bytes are copied in, so the batch needs nothing kept alive by the caller; after
/// ``removeAll()`` it keeps its capacity, and a batch refilled to the same size allocates nothing.
///
/// ```swift
/// var batch = TokenBatch()
/// for message in messages { batch.append(message.identityToken, nonce: message.rawNonce) }
/// for (index, result) in verifier.verify(batch).enumerated() {
///     if case .failure(let error) = result { print(index, error.reason) }
/// }
/// ```
public struct TokenBatch: Sendable {
    private var bytes: [UInt8] = []
    /// Per token: where its bytes are, and its nonce's (`nonceStart < 0`: none).
    private var spans: [Span] = []

    private struct Span {
        var tokenStart: Int
        var tokenEnd: Int
        var nonceStart: Int
        var nonceEnd: Int
    }

    /// An empty batch.
    public init() {}

    /// An empty batch with room for `tokens` tokens of `bytes` octets in all (nonces included).
    public init(minimumCapacity tokens: Int, bytes: Int) {
        self.bytes.reserveCapacity(bytes)
        spans.reserveCapacity(tokens)
    }

    /// The number of tokens.
    public var count: Int { spans.count }

    /// Whether the batch holds no token.
    public var isEmpty: Bool { spans.isEmpty }

    /// Adds `token` (exactly as received, not trimmed), with the raw nonce the app generated for
    /// it, if the token's `nonce` is to be checked.
    public mutating func append(_ token: String, nonce: String? = nil) {
        var token = token
        var nonce = nonce
        token.withUTF8 { token in
            guard nonce != nil else { return append(bytes: UnsafeRawBufferPointer(token), nonce: nil) }
            nonce!.withUTF8 { append(bytes: UnsafeRawBufferPointer(token), nonce: UnsafeRawBufferPointer($0)) }
        }
    }

    /// Adds a token given as bytes (see ``append(_:nonce:)-(String,_)``).
    public mutating func append(_ token: [UInt8], nonce: [UInt8]? = nil) {
        token.withUnsafeBytes { token in
            guard let nonce else { return append(bytes: token, nonce: nil) }
            nonce.withUnsafeBytes { append(bytes: token, nonce: $0) }
        }
    }

    /// Adds borrowed token bytes and raw nonce bytes (copied).
    public mutating func append(bytes token: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer?) {
        let tokenStart = bytes.count
        bytes.append(contentsOf: token)
        var span = Span(tokenStart: tokenStart, tokenEnd: bytes.count, nonceStart: -1, nonceEnd: -1)
        if let nonce {
            span.nonceStart = bytes.count
            bytes.append(contentsOf: nonce)
            span.nonceEnd = bytes.count
        }
        spans.append(span)
    }

    /// Adds the token at `index` of `other`, with its nonce.
    package mutating func append(from other: TokenBatch, at index: Int) {
        other.bytes.withUnsafeBytes { source in
            let token = UnsafeRawBufferPointer(rebasing: source[other.tokenRange(at: index)])
            append(
                bytes: token, nonce: other.nonceRange(at: index).map { UnsafeRawBufferPointer(rebasing: source[$0]) })
        }
    }

    /// Removes every token, keeping the capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
    }

    /// The token at `index`, as bytes.
    public func token(at index: Int) -> [UInt8] { Array(bytes[tokenRange(at: index)]) }

    /// The raw nonce given with the token at `index`, as bytes, if any.
    public func nonce(at index: Int) -> [UInt8]? { nonceRange(at: index).map { Array(bytes[$0]) } }

    /// Where the token at `index` is in ``withUnsafeBytes(_:)``.
    func tokenRange(at index: Int) -> Range<Int> { spans[index].tokenStart..<spans[index].tokenEnd }

    /// Where the nonce of the token at `index` is, if it has one.
    func nonceRange(at index: Int) -> Range<Int>? {
        let span = spans[index]
        return span.nonceStart < 0 ? nil : span.nonceStart..<span.nonceEnd
    }

    /// All the bytes, for the pipeline.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}
