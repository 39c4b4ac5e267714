// The C library, imported once for every file of nexusctl: `import LibC` instead of an
// `#if canImport(Glibc)` block per file. Glibc on Debian, Musl for a static Linux SDK
// build, Darwin on a Mac.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif
