// libFuzzer target: the JSON-lines reader (`JSONLinesFile.parse`) with the real outbox
// record type, then the outbox fold (`Outbox.read`) and compaction (`Outbox.compact`) over
// the same bytes written to a scratch profile. Built by Tests/Fuzz/build.sh.
//
// The input is the whole outbox file. Besides "does not crash", it traps when:
//   - a complete non-empty line is neither a record nor counted in skippedLines;
//   - tornTail is not exactly "non-empty and the last byte is not a newline";
//   - splitting the file at a newline changes what is read (lines are independent);
//   - completing the torn tail with a newline does not add exactly one line;
//   - a record the reader accepts, written back the way `append` writes it, is not one
//     line or does not read back equal (what compaction writes must survive a re-read);
//   - the fold disagrees with the reader's counts, repeats a message, or says a message
//     is (or is not) sent against the records: sent iff a `sent` record follows its
//     first valid `queued` record;
//   - a message has a negative attempt count;
//   - compaction changes any message that is not sent (attempts included), or keeps
//     one that is.
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NexusCore

private typealias Parsed = JSONLinesFile.ReadResult<OutboxRecord>

private func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant: \(message())") }
}

/// Lines the reader must account for: complete (newline-terminated) and non-empty.
private func completeLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    for i in bytes.indices where bytes[i] == 10 {
        if i > start { lines.append(bytes[start..<i]) }
        start = i + 1
    }
    return lines
}

private let encoder: JSONEncoder = {
    // As JSONLinesFile.append and .replace write.
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return e
}()

private func checkReader(_ bytes: [UInt8]) -> Parsed {
    let result = JSONLinesFile.parse(bytes, as: OutboxRecord.self)
    let lines = completeLines(bytes)
    check(
        result.records.count + result.skippedLines == lines.count,
        "\(result.records.count) records + \(result.skippedLines) skipped != \(lines.count) complete lines")
    let torn = !bytes.isEmpty && bytes.last != 10
    check(result.tornTail == torn, "tornTail \(result.tornTail), expected \(torn)")

    // Lines are independent: reading the file in two parts, cut after a newline, reads
    // the same records. Cut after the middle line.
    if lines.count >= 2 {
        let cut = lines[lines.count / 2].endIndex + 1
        let head = JSONLinesFile.parse(Array(bytes[..<cut]), as: OutboxRecord.self)
        let tail = JSONLinesFile.parse(Array(bytes[cut...]), as: OutboxRecord.self)
        check(!head.tornTail && tail.tornTail == result.tornTail, "split changed the torn tail")
        check(head.records + tail.records == result.records, "split changed the records")
        check(head.skippedLines + tail.skippedLines == result.skippedLines, "split changed the skipped count")
    }

    // A torn tail is never decoded: once completed it is one more line, read or skipped.
    if result.tornTail {
        let completed = JSONLinesFile.parse(bytes + [10], as: OutboxRecord.self)
        check(
            completed.records.count + completed.skippedLines == result.records.count + result.skippedLines + 1,
            "completing the torn tail did not add exactly one line")
        check(Array(completed.records.prefix(result.records.count)) == result.records, "completing the tail changed earlier records")
    }

    // What the writer makes of an accepted record is one line that reads back the same.
    for record in result.records {
        guard let data = try? encoder.encode(record) else {
            check(false, "a decoded record does not encode: \(record)")
            return result
        }
        let line = [UInt8](data)
        check(!line.contains(10), "an encoded record spans lines: \(String(decoding: line, as: UTF8.self))")
        let back = JSONLinesFile.parse(line + [10], as: OutboxRecord.self)
        check(
            back.records == [record],
            "record does not survive a write and a re-read: \(record) -> \(String(decoding: line, as: UTF8.self)) -> \(back.records)")
    }
    return result
}

// MARK: - The fold, over a scratch profile

/// `<tmpfs or $TMPDIR>/nexus-fuzz-<pid>`, so run.sh can remove it after a crash, when
/// the atexit handler does not run.
private let scratchHome: String = {
    // tmpfs when there is one: compaction fsyncs on every input.
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
    let home = "\(base)/nexus-fuzz-\(getpid())"
    removeScratch(home)  // left by an earlier process with the same pid
    guard mkdir(home, 0o700) == 0 else { fatalError("fuzz setup: can't create \(home)") }
    atexit { removeScratch(scratchHome) }
    return home
}()

private let profile: Profile = {
    let p = Profile(name: "fuzz", home: scratchHome)
    mkdir(p.directory, 0o700)
    return p
}()

private func removeScratch(_ home: String) {
    let directory = home + "/fuzz"
    for name in ["outbox.jsonl", "outbox.jsonl.tmp.\(getpid())", "outbox.lock", "flush.lock"] { unlink(directory + "/" + name) }
    rmdir(directory)
    rmdir(home)
}

private func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    check(fd >= 0, "can't create \(path)")
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
        check(n > 0, "can't write \(path)")
        done += n
    }
    close(fd)
}

private func checkFold(_ bytes: [UInt8], _ parsed: Parsed) {
    let outbox = Outbox(profile: profile)
    writeFile(profile.outbox.path, bytes)
    let contents: Outbox.Contents
    do {
        contents = try outbox.read()
    } catch {
        check(false, "reading the outbox failed: \(error)")
        return
    }
    check(contents.recordCount == parsed.records.count, "fold recordCount \(contents.recordCount) != \(parsed.records.count) records")
    check(
        contents.damagedRecords == parsed.skippedLines + (parsed.tornTail ? 1 : 0),
        "fold damagedRecords \(contents.damagedRecords) != \(parsed.skippedLines) skipped + torn \(parsed.tornTail)")

    // Sent iff a `sent` record follows the message's first valid `queued` record.
    var queuedAt: [String: Int] = [:]
    var sent: Set<String> = []
    for (i, r) in parsed.records.enumerated() {
        if r.op == .queued, queuedAt[r.localId] == nil, r.conversationId != nil || r.to != nil, r.text != nil {
            queuedAt[r.localId] = i
        } else if r.op == .sent, queuedAt[r.localId] != nil {
            sent.insert(r.localId)
        }
    }
    check(Set(contents.entries.map(\.localId)).count == contents.entries.count, "the fold repeats a message")
    check(contents.entries.count == queuedAt.count, "fold has \(contents.entries.count) messages, \(queuedAt.count) were queued")
    for e in contents.entries {
        check(queuedAt[e.localId] != nil, "message \(e.localId) was never queued")
        check(e.status != .sending, "a message read from the file is 'sending'")
        check(e.attempts >= 0, "message \(e.localId) has \(e.attempts) attempts")
        check((e.status == .sent) == sent.contains(e.localId), "message \(e.localId) is \(e.status) against its records")
    }

    // Compaction keeps every message that is not sent, as it was.
    do {
        try outbox.compact(force: true)
        let after = try outbox.read()
        let open = contents.entries.filter { $0.status != .sent }
        // Damaged lines are kept byte for byte (only `repair` drops them); a torn tail goes.
        check(
            after.damaged.map(\.text) == contents.damaged.map(\.text) && !after.tornTail,
            "compaction changed the damaged records: \(contents.damaged.count) -> \(after.damaged.count), torn \(after.tornTail)")
        check(after.entries.map(\.localId) == open.map(\.localId), "compaction changed the messages or their order")
        for (a, b) in zip(open, after.entries) {
            check(a == b, "compaction changed a message: \(a) -> \(b)")
        }
    } catch {
        check(false, "compaction failed: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    let parsed = checkReader(bytes)
    checkFold(bytes, parsed)
    return 0
}
