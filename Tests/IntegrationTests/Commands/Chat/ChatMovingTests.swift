import Foundation
import Testing

/// `chat` in a group, paging back, a resize, and typing sent while writing.
@Suite(.harness)
struct ChatMovingTests {
    @Test func inAGroupMyMessageSaysHowManyReadIt() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        #expect(try alice.run(["new", bob.email, carol.email, "--name", "Ramen"]).code == 0)
        let list = try #require(try alice.run(["convos", "--json"]).json() as? [String: Any])
        let groups = (list["conversations"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "group" }
        let id = try #require(groups.first?["id"] as? Int)
        let tty = try TerminalSession(alice, ["chat", "\(id)"])
        defer { tty.close() }
        #expect(tty.wait { $0.first == "Ramen · 3 members" }, "\(tty.screen)")
        tty.send("hi all", literal: true)
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.hasSuffix("You: hi all  ✓") } }, "\(tty.screen)")
        #expect(try bob.run(["read", "\(id)"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.hasSuffix("You: hi all  ✓✓ Read by 1/2") } }, "\(tty.screen)")
        #expect(try carol.run(["read", "\(id)"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.hasSuffix("You: hi all  ✓✓ Read by 2/2") } }, "\(tty.screen)")
        // Carol writes: her name is on her message.
        #expect(try carol.run(["send", "\(id)", "ramen at 7?"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.hasSuffix("Carol: ramen at 7?") } }, "\(tty.screen)")
    }

    @Test func pageUpAtTheTopLoadsOlderPagesUntilNoMore() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let lines = (1...120).map { "m \($0)" }.joined(separator: "\n") + "\n"
        #expect(try bob.run(["send", alice.email, "--each-line"], stdin: lines).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email], width: 80, height: 20)
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" m 120") } }, "\(tty.screen)")
        #expect(!tty.screen.contains("No more messages"))
        var presses = 0
        while !tty.screen.contains("No more messages") && presses < 40 {
            tty.send("PageUp")
            presses += 1
            // Each press moves the screen (or loads a page): wait for it to change.
            let before = tty.screen
            _ = tty.wait(timeout: 3) { $0 != before }
        }
        #expect(tty.wait { s in s.contains("No more messages") && s.contains { $0.hasSuffix(" m 1") } }, "\(tty.screen)")
        #expect(presses > 2, "three pages of 50 took \(presses) PgUp")
        tty.send("End")
    }

    @Test func aResizeLaysTheScreenOutAgain() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let long = String(repeating: "word ", count: 14) + "end"
        #expect(try bob.run(["send", alice.email, long]).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email], width: 100, height: 20)
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix("word end") } && s.last == ">" }, "\(tty.screen)")
        tty.resize(width: 40, height: 12)
        #expect(tty.wait { s in
            s.count <= 12 && s.allSatisfy { $0.count <= 40 } && s.contains { $0.hasSuffix("end") } && s.first?.hasPrefix("Bob") == true && s.last == ">"
        }, "\(tty.screen)")
    }

    @Test func writingTellsTheOthersAtMostEveryTwoSeconds() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi"]).code == 0)
        let (tail, out, _) = try bob.spawn(["tail", "-f", "--json", alice.email])
        defer { tail.terminate() }
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" hi") } }, "\(tty.screen)")
        // The first key announces at once. Waiting for it keeps the announcement out of the
        // answer that brings the message, which would end it unseen.
        tty.send("h", literal: true)
        #expect(out.wait { lines in lines.contains { $0.contains("\"type\":\"typing\"") } }, "\(out.text)")
        for c in "ello there" { tty.send(String(c), literal: true) }
        tty.send("Enter")
        #expect(out.wait { lines in lines.contains { $0.contains("hello there") } }, "\(out.text)")
        // Ten more keys: another announcement only once 2 s have passed since the last.
        let untils = out.lines.prefix { !$0.contains("hello there") }
            .filter { $0.contains("\"type\":\"typing\"") }
            .compactMap { line -> Date? in
                let record = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                return (record?["until"] as? String).flatMap { ISO8601DateFormatter.withFractions.date(from: $0) }
            }
        #expect(!untils.isEmpty, "\(out.text)")
        #expect(zip(untils, untils.dropFirst()).allSatisfy { $1.timeIntervalSince($0) >= 1.9 }, "\(out.text)")
    }
}

/// Two `chat`s and a `tail -f` of one profile, side by side: each follows with a position
/// of its own, so each shows every message, and none takes one from another.
@Suite(.harness)
struct ChatBesideTailTests {
    @Test func twoChatsAndATailEachSeeEveryMessage() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "first"]).code == 0)
        let (tail, out, _) = try alice.spawn(["tail", "-f"])
        defer { tail.terminate() }
        let one = try TerminalSession(alice, ["chat", bob.email])
        defer { one.close() }
        let two = try TerminalSession(alice, ["chat"])
        defer { two.close() }
        #expect(one.wait { s in s.contains { $0.hasSuffix(" first") } }, "\(one.screen)")
        #expect(two.wait { s in s.contains { $0.contains("Bob") && $0.contains("first") } }, "\(two.screen)")
        #expect(try bob.run(["send", alice.email, "to all three"]).code == 0)
        #expect(one.wait { s in s.contains { $0.hasSuffix(" to all three") } }, "\(one.screen)")
        #expect(two.wait { s in s.contains { $0.contains("Bob") && $0.contains("to all three") } }, "\(two.screen)")
        #expect(out.wait { $0.contains { $0.hasSuffix("Bob: to all three") } }, "\(out.text)")
        #expect(out.lines.filter { $0.hasSuffix("Bob: to all three") }.count == 1)
    }
}
