package import JWTVerify

/// What ``AuditEngine`` makes of a range of a batch's lines on a worker thread, handed back in
/// input order.
package enum AuditPart: Sendable {
    /// Records (jsonl, tsv): the records already written, and the counts the summary and
    /// the exit status need (`unread`: ``TokenExtractor/Discard/unbrokenRun`` cuts); with
    /// `--partials`, also the records and discards as values, for the file's partial report.
    /// `proofs` and `validProofs` count the DPoP proofs written (not among `tokens`).
    case lines(
        _ text: FinishedOutputText, tokens: Int, valid: Int, proofs: Int, validProofs: Int, unread: Int,
        partial: [AuditRun]?)
    /// A report: the evaluated tokens, DPoP proofs and discarded fragments, for ``AuditReport``.
    case evaluated(records: [AuditRecord], proofs: [AuditProof], discarded: [AuditDiscard])
}
