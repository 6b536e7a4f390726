/// One command-line option, declared once: its names, its value's placeholder, its help text and
/// what it does. A command's parser and its `--help` both come from its ``OptionTable``, so the
/// help cannot drift from what is accepted.
struct Option<Options>: Sendable {
    /// Every spelling, short first (`-q`, `--quiet`).
    let names: [String]
    /// The value's placeholder (`SRC`, `N`), or `nil` for a flag.
    let placeholder: String?
    /// The help text; `\n` starts a continuation line.
    let help: String
    /// Applies the option (`value` is empty for a flag; `name` is the spelling used).
    let apply: @Sendable (_ options: inout Options, _ value: String, _ name: String) throws(CommandFailure) -> Void

    /// A flag without a value.
    static func flag(_ names: String..., help: String, _ set: @escaping @Sendable (inout Options) -> Void) -> Option {
        Option(names: names, placeholder: nil, help: help) { options, _, _ throws(CommandFailure) in set(&options) }
    }

    /// An option with a value.
    static func value(
        _ names: String..., placeholder: String, help: String,
        _ set: @escaping @Sendable (inout Options, _ value: String, _ name: String) throws(CommandFailure) -> Void
    ) -> Option {
        Option(names: names, placeholder: placeholder, help: help, apply: set)
    }

    /// An option whose value is stored as given.
    static func value(
        _ names: String..., placeholder: String, help: String,
        _ set: @escaping @Sendable (inout Options, _ value: String) -> Void
    ) -> Option {
        Option(names: names, placeholder: placeholder, help: help) { options, value, _ throws(CommandFailure) in
            set(&options, value)
        }
    }

    /// This option applied to the part of a larger options value at `path`.
    func lifted<Outer>(_ path: any WritableKeyPath<Outer, Options> & Sendable) -> Option<Outer> {
        let apply = self.apply
        return Option<Outer>(names: names, placeholder: placeholder, help: help) {
            outer, value, name throws(CommandFailure) in
            try apply(&outer[keyPath: path], value, name)
        }
    }
}

/// A command's options: the parser and the `OPTIONS:` help text, both from the same declarations.
/// `-h`/`--help` is always accepted.
struct OptionTable<Options>: Sendable {
    let options: [Option<Options>]

    init(_ groups: [Option<Options>]...) { options = groups.flatMap { $0 } }

    /// Each option's spellings, value placeholder and help, for manual pages and completions.
    var descriptions: [OptionDescription] {
        options.map { OptionDescription(names: $0.names, placeholder: $0.placeholder, help: $0.help) } + [.helpOption]
    }

    /// Every accepted spelling, `-h` and `--help` included.
    var acceptedNames: [String] { options.flatMap(\.names) + ["-h", "--help"] }

    /// The `OPTIONS:` lines: names and placeholder in a 25-column field, then the help.
    var help: String { OptionDescription.helpLines(descriptions) }

    /// Parses `words` into `options`; operands go to `operand`; an option the table lacks is
    /// refused with `unknown`'s failure. Returns true when help was asked for.
    func parse(
        _ words: ArraySlice<String>, into values: inout Options,
        unknown: (String) -> CommandFailure = { .usage("unknown option \($0)") },
        operand: (inout Options, String) throws(CommandFailure) -> Void
    ) throws(CommandFailure) -> Bool {
        var arguments = Arguments(words)
        var helpRequested = false
        while let word = arguments.next() {
            switch word {
            case .operand(let text):
                try operand(&values, text)
            case .option("-", nil):
                try operand(&values, "-")
            case .option(let name, let inline):
                if name == "-h" || name == "--help" {
                    helpRequested = true
                    continue
                }
                guard let option = options.first(where: { $0.names.contains(name) }) else { throw unknown(name) }
                if option.placeholder == nil {
                    if inline != nil { throw .usage("\(name) takes no value") }
                    try option.apply(&values, "", name)
                } else {
                    try option.apply(&values, try arguments.value(for: name, inline: inline), name)
                }
            }
        }
        return helpRequested
    }
}

/// Help text built from a list the code owns (profiles, presets), wrapped for the help's column.
enum HelpText {
    /// `words` joined by `separator`, broken into lines of at most `width` characters (joined by
    /// `\n`, which the help's layout indents).
    static func wrapped(_ words: [String], separator: String = ", ", width: Int = 72) -> String {
        var lines: [String] = []
        var line = ""
        for (index, word) in words.enumerated() {
            let piece = word + (index < words.count - 1 ? separator.trimmingTrailingSpaces : "")
            if !line.isEmpty && line.count + 1 + piece.count > width {
                lines.append(line)
                line = piece
            } else {
                line += (line.isEmpty ? "" : " ") + piece
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// An option as documentation shows it, whatever command it belongs to.
struct OptionDescription: Sendable {
    let names: [String]
    let placeholder: String?
    let help: String

    /// `-h`, `--help`, which every table accepts.
    static let helpOption = OptionDescription(names: ["-h", "--help"], placeholder: nil, help: "Show this help.")

    /// The `OPTIONS:` lines of `descriptions`: names and placeholder in a 25-column field, then the help.
    static func helpLines(_ descriptions: [OptionDescription]) -> String {
        var lines: [String] = []
        for option in descriptions {
            let label = option.names.joined(separator: ", ") + (option.placeholder.map { " " + $0 } ?? "")
            let parts = option.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let head = "  " + label
            if head.count <= 26 {
                lines.append(head + String(repeating: " ", count: 27 - head.count) + parts[0])
            } else {
                lines.append(head)
                lines.append(String(repeating: " ", count: 27) + parts[0])
            }
            for part in parts.dropFirst() { lines.append(String(repeating: " ", count: 27) + part) }
        }
        return lines.joined(separator: "\n")
    }

    /// The options of several tables (a command whose subcommands each have their own), each once
    /// in the order first seen, `-h`/`--help` last.
    static func merged(_ lists: [[OptionDescription]]) -> [OptionDescription] {
        var merged: [OptionDescription] = []
        for option in lists.joined() where option.names != helpOption.names {
            if !merged.contains(where: { $0.names == option.names }) { merged.append(option) }
        }
        return merged + [helpOption]
    }
}
