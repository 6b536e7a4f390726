/// A cursor over command-line words, with `--name value`, `--name=value` and `--` handling.
struct Arguments {
    private var words: ArraySlice<String>
    private var onlyOperands = false

    init(_ words: ArraySlice<String>) { self.words = words }

    /// One parsed word.
    enum Word: Equatable {
        case option(String, inlineValue: String?)
        case operand(String)
    }

    /// The next word, or `nil` at the end.
    mutating func next() -> Word? {
        guard let word = words.popFirst() else { return nil }
        if onlyOperands { return .operand(word) }
        if word == "--" {
            onlyOperands = true
            return next()
        }
        if word.hasPrefix("--") && word.count > 2 {
            if let equals = word.firstIndex(of: "=") {
                return .option(String(word[..<equals]), inlineValue: String(word[word.index(after: equals)...]))
            }
            return .option(word, inlineValue: nil)
        }
        if word.hasPrefix("-") && word.count > 1 { return .option(word, inlineValue: nil) }
        return .operand(word)
    }

    /// The value of option `name`: its inline `=value` or the next word.
    mutating func value(for name: String, inline: String?) throws(CommandFailure) -> String {
        if let inline { return inline }
        guard let word = words.popFirst() else { throw .usage("\(name) needs a value") }
        return word
    }
}
