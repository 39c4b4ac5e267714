/// An option as a command declares it and reads it back: the same value goes into the
/// command's `options` and into `invocation[key]`, and its type says what reading it
/// gives. A misspelt option is then a compile error, where a name looked up as a string
/// read a silent `false`.
public protocol OptionKey: Sendable {
    var spec: OptionSpec { get }
}

/// A switch; reading it gives whether it is on (`--no-NAME` turns it off).
public struct Flag: OptionKey {
    public private(set) var spec: OptionSpec

    public init(_ name: String, short: Character? = nil, help: String, secret: String? = nil) {
        spec = OptionSpec(name, short: short, .flag, help: help, secret: secret)
    }

    /// The same switch, explained for another command: it reads the same, so code shared
    /// by several commands reads it with one key.
    public func helped(_ help: String) -> Flag {
        var other = self
        other.spec.help = help
        return other
    }
}

/// An option with a value; reading it gives the last one given, if any.
public struct Value: OptionKey {
    public let spec: OptionSpec

    public init(_ name: String, short: Character? = nil, _ placeholder: String, help: String) {
        spec = OptionSpec(name, short: short, .value(placeholder: placeholder), help: help)
    }
}

/// A switch that may say how (`--notify`, `--notify=private`, `--no-notify`); reading it
/// gives the last word given, `bare` for the switch alone, nil when it was not given.
public struct OptionalValue: OptionKey {
    public let spec: OptionSpec

    public init(_ name: String, _ placeholder: String, bare: String, help: String) {
        spec = OptionSpec(name, .optionalValue(placeholder: placeholder, bare: bare), help: help)
    }
}

/// A repeatable option with a value; reading it gives every value, in the order given.
public struct Values: OptionKey {
    public let spec: OptionSpec

    public init(_ name: String, short: Character? = nil, _ placeholder: String, help: String) {
        spec = OptionSpec(name, short: short, .value(placeholder: placeholder), help: help)
    }
}

extension Invocation {
    public subscript(_ flag: Flag) -> Bool { flags[flag.spec.name] ?? false }

    public subscript(_ value: Value) -> String? { values[value.spec.name]?.last }

    public subscript(_ repeated: Values) -> [String] { values[repeated.spec.name] ?? [] }

    public subscript(_ value: OptionalValue) -> String? { values[value.spec.name]?.last }

    /// Whether the switch was given on or off; nil when it was not given either way.
    public func given(_ flag: Flag) -> Bool? { flags[flag.spec.name] }
}
