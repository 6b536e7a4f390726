package import JWTVerify

/// A task's sightings of each token, combined before the Spark job's shuffle (`audit
/// --reduced-repeats`): per token how often it occurred and its earliest and latest sighting,
/// in bounded memory. At most ``capacity`` tokens are held; when that many are, they are all
/// handed on and the combining starts afresh, so a token may be handed on more than once (the
/// reduction adds its summaries up). Each summary is a `tokens` line of ``AuditReduction``.
package struct AuditRepeatCombiner {
    /// Most tokens held at once (about 20 MB of summaries).
    package static let capacity = 65_536

    private struct Summary {
        let nonce: SHA256Digest?
        var count: Int
        var first: (order: AuditReduction.Order, column: Int, origin: AuditOrigin)
        var last: (order: AuditReduction.Order, column: Int, origin: AuditOrigin)
    }

    private let listing: AuditListing
    private var held: [SHA256Digest: Summary] = [:]

    /// A combiner placing sightings by `listing`.
    package init(listing: AuditListing) { self.listing = listing }

    /// Takes one occurrence; returns the lines to hand on when the combiner was full.
    package mutating func add(_ record: AuditRecord) -> FinishedOutputText? {
        // A sighting without a place in the listing (a tag too long to read) sorts first.
        let order =
            listing.order(record.origin, column: record.column)
            ?? AuditReduction.Order(file: -1, line: 0, column: Int64(record.column))
        let sighting = (order, record.column, listing.named(record.origin))
        if var summary = held[record.fingerprint] {
            summary.count += 1
            if order < summary.first.order { summary.first = sighting }
            if summary.last.order < order { summary.last = sighting }
            held[record.fingerprint] = summary
            return nil
        }
        var handed: FinishedOutputText? = nil
        if held.count >= Self.capacity { handed = flush() }
        held[record.fingerprint] = Summary(nonce: record.nonceDigest, count: 1, first: sighting, last: sighting)
        return handed
    }

    /// Hands on every token held, one `tokens` line each, and holds none.
    package mutating func flush() -> FinishedOutputText {
        var text = OutputText()
        for (fingerprint, summary) in held {
            text.appendRaw(Array(AuditReduction.summaryMark.utf8))
            text.appendRaw(Array(fingerprint.hex.utf8))
            text.appendRaw(
                Array(
                    "\t\(summary.nonce?.hex ?? "")\t\(summary.count)\t\(summary.first.order.text)\t\(summary.last.order.text)\t"
                        .utf8))
            AuditReport.Sighting(origin: summary.first.origin, column: summary.first.column).appendJSON(to: &text)
            text.appendRaw(Array("\t".utf8))
            AuditReport.Sighting(origin: summary.last.origin, column: summary.last.column).appendJSON(to: &text)
            text.appendRaw(Array("\n".utf8))
        }
        held.removeAll(keepingCapacity: true)
        return text.finish()
    }
}
