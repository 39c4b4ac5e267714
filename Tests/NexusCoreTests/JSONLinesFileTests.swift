import Testing
@testable import NexusCore
import Foundation

struct JSONLinesFileTests {
    struct Record: Codable, Equatable { var n: Int }

    func tempFile() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-jsonl-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/f.jsonl"
    }

    @Test func appendsAndReads() throws {
        let file = JSONLinesFile(path: try tempFile())
        try file.append([Record(n: 1), Record(n: 2)])
        try file.append([Record(n: 3)])
        let result = try file.read(Record.self)
        #expect(result.records == [Record(n: 1), Record(n: 2), Record(n: 3)])
        #expect(result.skippedLines == 0)
        #expect(!result.tornTail)
    }

    @Test func tornLastLineIsSkippedThenRepaired() throws {
        let path = try tempFile()
        let file = JSONLinesFile(path: path)
        try file.append([Record(n: 1), Record(n: 2)])
        // A crash mid-write leaves half a line.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"n\":".utf8))
        handle.closeFile()

        let torn = try file.read(Record.self)
        #expect(torn.records == [Record(n: 1), Record(n: 2)])
        #expect(torn.tornTail)

        try file.append([Record(n: 3)])
        let repaired = try file.read(Record.self)
        #expect(repaired.records == [Record(n: 1), Record(n: 2), Record(n: 3)])
        #expect(!repaired.tornTail)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n")
    }

    @Test func garbageLineCostsOnlyItself() throws {
        let path = try tempFile()
        try Data("{\"n\":1}\nnot json\n{\"n\":2}\n".utf8).write(to: URL(fileURLWithPath: path))
        let result = try JSONLinesFile(path: path).read(Record.self)
        #expect(result.records == [Record(n: 1), Record(n: 2)])
        #expect(result.skippedLines == 1)
    }

    @Test func missingFileReadsEmpty() throws {
        let result = try JSONLinesFile(path: try tempFile()).read(Record.self)
        #expect(result.records.isEmpty)
    }
}
