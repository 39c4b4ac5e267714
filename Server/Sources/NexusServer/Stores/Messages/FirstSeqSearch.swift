import NexusWire

/// The seq of the first message sent at or after `time`, by binary search over seqs with
/// point lookups on the (conversation, seq) index: about 20 of them for a million
/// messages, where a scan by time would read them all. Send times never decrease with
/// seq (each backend stamps messages in seq order), which is what makes this work.
/// Answers one past the last seq when no message is that recent.
func firstSeqBySearch(
    sentAtOrAfter time: Timestamp, lastSeq: Int64, sentAt: (Int64) async throws -> Int64
) async throws -> Int64 {
    var lo: Int64 = 1, hi = lastSeq + 1
    while lo < hi {
        let mid = lo + (hi - lo) / 2
        if try await sentAt(mid) < time.milliseconds { lo = mid + 1 } else { hi = mid }
    }
    return lo
}
