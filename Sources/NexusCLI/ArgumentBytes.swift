import LibC
import NexusCore

extension NexusCLI {
    /// The process's arguments that are not valid UTF-8: Swift hands them over with U+FFFD
    /// in place of each bad sequence, and their bytes let `send` say which lines changed.
    public static func argumentsNotUTF8() -> [String: [UInt8]] {
        var replaced: [String: [UInt8]] = [:]
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            if !InvalidUTF8.isValid(bytes) { replaced[String(decoding: bytes, as: UTF8.self)] = bytes }
        }
        return replaced
    }
}
