import Foundation
import Testing

/// nexusctl loads FoundationEssentials only: Foundation and its ICU data cost every process
/// 6.5 MiB and part of its start. A core file that imported Foundation for one string search
/// put `send`'s peak from 15.5 to 22.0 MiB in `make bench`, whose memory rows were still
/// under their limits, and no test failed. Debug builds link
/// Foundation whatever the sources say, so the sources are what is checked.
struct FoundationImportTests {
    @Test func foundationIsImportedOnlyWhereFoundationEssentialsIsMissing() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "found \(files.count) source files under \(root.path)")
        for file in files {
            let lines = try String(contentsOfFile: root.appendingPathComponent(file).path, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            for (i, line) in lines.enumerated() where line == "import Foundation" {
                let fallback = i >= 2 && lines[i - 1] == "#else" && lines[i - 2] == "import FoundationEssentials"
                #expect(fallback, "\(file):\(i + 1) imports Foundation; import FoundationEssentials under #if canImport(FoundationEssentials) instead")
            }
        }
    }
}
