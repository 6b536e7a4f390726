/// A setting a provider profile takes besides its name, declared once as data: its name, the kind
/// of value it takes and how that is checked, its help text, and which faces take it. The command
/// line's flag (`--NAME`), the `serve --config` key (`NAME` with underscores), the help, the manual
/// pages, the completions and the usage lines all come from these declarations
/// (``ProviderProfile/settings``, ``ProviderRegistry/settings``).
package struct ProfileSetting: Sendable, Hashable {
    /// The name: `--NAME` on the command line, `NAME` (dashes as underscores) in a configuration.
    package let name: String
    /// The value's placeholder in help texts (`ID`, `N`); `nil` for a flag.
    package let placeholder: String?
    /// The help text; `\n` starts a continuation line.
    package let help: String
    /// The setting in words, for errors ("a project", "a bundle ID").
    package let described: String
    /// What value it takes.
    package let kind: Kind
    /// The faces that take it.
    package let faces: Faces

    /// What value a setting takes, and how it is checked before any profile sees it.
    package enum Kind: Sendable, Hashable {
        /// One string (the last one given counts); `nonEmpty`: an empty one is refused.
        case text(nonEmpty: Bool)
        /// A string, repeatable: each one given adds one; none may be empty.
        case texts
        /// A whole number ≥ 1.
        case positiveInteger
        /// One of `choices`, in any letter case; the value is the choice as declared.
        case choice([String])
        /// On when given.
        case flag
        /// A file, repeatable: the value is each file's bytes (a path in a configuration file is
        /// relative to that file's folder).
        case files
    }

    /// The faces of the command line that take a setting.
    package struct Faces: OptionSet, Sendable, Hashable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// `verify`.
        package static let verify = Faces(rawValue: 1)
        /// `inspect`.
        package static let inspect = Faces(rawValue: 2)
        /// `audit`.
        package static let audit = Faces(rawValue: 4)
        /// `serve`, its routes and its configuration file.
        package static let serve = Faces(rawValue: 8)
        /// Every face.
        package static let all: Faces = [.verify, .inspect, .audit, .serve]
    }

    /// A setting from its declaration.
    package init(
        _ name: String, placeholder: String?, kind: Kind, described: String, help: String, faces: Faces = .all
    ) {
        self.name = name
        self.placeholder = placeholder
        self.kind = kind
        self.described = described
        self.help = help
        self.faces = faces
    }

    /// The command line's spelling, `--NAME`.
    package var flag: String { "--" + name }

    /// The value of `text` (as given on the command line or in a configuration) for this setting,
    /// or what is wrong with it (a sentence that follows the flag: "takes a positive integer").
    /// Files are read by the caller.
    package func parse(_ text: String) -> Result<ProfileSettingValue, ProfileSetting.Refusal> {
        switch kind {
        case .text(let nonEmpty):
            if nonEmpty && text.isEmpty { return .failure(Refusal("takes a non-empty \(noun)")) }
            return .success(.text(text))
        case .texts:
            guard !text.isEmpty else {
                return .failure(Refusal("takes a non-empty \(noun) (an empty one accepts no token)"))
            }
            return .success(.texts([text]))
        case .positiveInteger:
            guard let number = Int64(text), number > 0 else { return .failure(Refusal("takes a positive integer")) }
            return .success(.integer(number))
        case .choice(let choices):
            let lowered = Array(text.lowercased().utf8)
            guard let choice = choices.first(where: { Array($0.lowercased().utf8) == lowered }) else {
                return .failure(Refusal("takes " + choices.joined(separator: " or ")))
            }
            return .success(.text(choice))
        case .flag:
            return .success(.flag)
        case .files:
            return .failure(Refusal("takes a file, read by the caller"))
        }
    }

    /// The value's kind in words, for refusals ("bundle ID" of "a bundle ID").
    private var noun: String {
        for article in ["a ", "an "] where described.hasPrefix(article) {
            return String(described.dropFirst(article.count))
        }
        return described
    }

    /// Why a value was refused: the words after the flag.
    package struct Refusal: Error, Sendable {
        /// "takes a positive integer".
        package let message: String
        init(_ message: String) { self.message = message }
    }

    /// Whether both declare the same setting (by name).
    package static func == (lhs: ProfileSetting, rhs: ProfileSetting) -> Bool { exactlyEquals(lhs.name, rhs.name) }

    /// Hashes the name.
    package func hash(into hasher: inout Hasher) { hasher.combine(ExactBytes(name)) }
}

/// A setting's value, as ``ProfileSetting/Kind`` makes it.
package enum ProfileSettingValue: Sendable {
    /// ``ProfileSetting/Kind/text(nonEmpty:)`` and ``ProfileSetting/Kind/choice(_:)``.
    case text(String)
    /// ``ProfileSetting/Kind/texts``, in the order given.
    case texts([String])
    /// ``ProfileSetting/Kind/positiveInteger``.
    case integer(Int64)
    /// ``ProfileSetting/Kind/flag``.
    case flag
    /// ``ProfileSetting/Kind/files``: each file's bytes, in the order given.
    case files([[UInt8]])
    /// A typed value set through the library's API (an ``AppStoreTrust``).
    case value(any Sendable)

    /// The string of a text or choice.
    package var text: String? {
        guard case .text(let text) = self else { return nil }
        return text
    }

    /// The strings of a repeatable text.
    package var texts: [String]? {
        guard case .texts(let texts) = self else { return nil }
        return texts
    }

    /// The number of a positive integer.
    package var integer: Int64? {
        guard case .integer(let number) = self else { return nil }
        return number
    }

    /// This value with `other` added after it (repeatable kinds); otherwise `other`.
    package func adding(_ other: ProfileSettingValue) -> ProfileSettingValue {
        switch (self, other) {
        case (.texts(let a), .texts(let b)): .texts(a + b)
        case (.files(let a), .files(let b)): .files(a + b)
        default: other
        }
    }
}

extension ProfileSetting {
    /// The accepted audiences (`--audience`, repeatable), a setting of the profiles that take them.
    /// Its flag is the generic `--audience`, which works without a profile too.
    package static let audiences = ProfileSetting(
        "audience", placeholder: "AUD", kind: .texts, described: "an audience",
        help: "Accepted \"aud\". Repeatable: any of them is accepted.")
    /// The required issuer (`--issuer`), a setting of the profiles that take one. Its flag is the
    /// generic `--issuer`, which works without a profile too.
    package static let issuer = ProfileSetting(
        "issuer", placeholder: "ISS", kind: .text(nonEmpty: true), described: "an issuer",
        help: "Required \"iss\", compared exactly.")

    /// The settings every policy takes, with or without a profile: their flags are the generic
    /// ones, not generated from the profiles' declarations.
    package static let generic: [ProfileSetting] = [.audiences, .issuer]
}
