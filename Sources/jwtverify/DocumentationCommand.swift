import JWTVerify

/// `jwtverify manual [COMMAND]` and `jwtverify completion bash|zsh`: the manual pages and the shell
/// completions, generated from the commands' own help texts and option tables
/// (``CommandCatalog``), so that what is installed says what the binary does.
enum DocumentationCommand {
    static let manualHelp = """
        USAGE: jwtverify manual [COMMAND]
               jwtverify manual --commands

        Prints the manual page of jwtverify (or of one command: jwtverify-COMMAND) in roff, as
        'man' reads it: 'jwtverify manual verify | man -l -'. The pages come from the same help
        texts and option tables as --help. --commands lists the commands that have a page.
        """

    static let completionHelp = """
        USAGE: jwtverify completion bash|zsh

        Prints a completion script for the shell: commands, subcommands, each command's options,
        profile names after --profile, files elsewhere. Install it where the shell looks, e.g.
        'jwtverify completion bash > /etc/bash_completion.d/jwtverify'.
        """

    /// `jwtverify manual [COMMAND]`, given the words after `manual`.
    static func manual(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        if CommandEntry.asksForHelp(words) {
            print(manualHelp)
            return .ok
        }
        switch words.first {
        case "--commands"?:
            // The pages there are besides jwtverify(1), one name per line (for packaging).
            for entry in CommandCatalog.entries { print(entry.name) }
        case nil:
            print(topPage(), terminator: "")
        case let name?:
            guard let entry = CommandCatalog.entry(name) else {
                throw .usage("manual takes a command: " + CommandCatalog.entries.map(\.name).joined(separator: ", "))
            }
            print(page(entry), terminator: "")
        }
        return .ok
    }

    /// `jwtverify completion bash|zsh`, given the words after `completion`.
    static func completion(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        if CommandEntry.asksForHelp(words) {
            print(completionHelp)
            return .ok
        }
        switch words.first {
        case "bash"?: print(bash(), terminator: "")
        case "zsh"?: print(zsh(), terminator: "")
        default: throw .usage("completion takes a shell: bash, zsh")
        }
        return .ok
    }

    // MARK: Manual pages

    /// Text for roff: backslashes and hyphens escaped, and a line that would read as a request
    /// (a leading `.` or `'`) guarded.
    static func roff(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(character)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    private static func header(_ name: String, _ summary: String) -> String {
        ".TH \(roff(name.uppercased())) 1 \"\" \"jwtverify \(JWTVerifyCommand.version)\" \"User Commands\"\n.SH NAME\n\(roff(name)) \\- \(roff(summary))\n"
    }

    /// `jwtverify(1)`: the commands, each pointing at its own page.
    static func topPage() -> String {
        var page = header(
            "jwtverify", "verify JSON Web Tokens: Sign in with Apple, Firebase, Google, App Store signed data")
        page +=
            ".SH SYNOPSIS\n.B jwtverify\n\\fIcommand\\fR [\\fIoptions\\fR]\n.br\n.B jwtverify\n\\-\\-help | \\-\\-version\n"
        page += ".SH DESCRIPTION\n"
        page += section(bodyLines(JWTVerifyCommand.help).description)
        page += ".SH COMMANDS\n"
        for entry in CommandCatalog.entries {
            page +=
                ".TP\n.B \(roff(entry.name))\n\(roff(entry.summary)); see \\fBjwtverify\\-\(roff(entry.name))\\fR(1).\n"
        }
        page +=
            ".SH SEE ALSO\n"
            + CommandCatalog.entries.map { "\\fBjwtverify\\-\(roff($0.name))\\fR(1)" }.joined(separator: ",\n") + "\n"
        return page
    }

    /// `jwtverify-COMMAND(1)`: its usage, description, options and the sections of its help.
    static func page(_ entry: CommandEntry) -> String {
        let parts = bodyLines(entry.help)
        var page = header("jwtverify-\(entry.name)", entry.summary)
        page += ".SH SYNOPSIS\n.nf\n" + parts.usage.map(roff).joined(separator: "\n") + "\n.fi\n"
        page += ".SH DESCRIPTION\n" + section(parts.description)
        if !entry.options.isEmpty {
            page += ".SH OPTIONS\n"
            for option in entry.options {
                let names = option.names.map { "\\fB\(roff($0))\\fR" }.joined(separator: ", ")
                page += ".TP\n\(names)\(option.placeholder.map { " \\fI\(roff($0))\\fR" } ?? "")\n"
                page +=
                    option.help.split(separator: "\n", omittingEmptySubsequences: false).map { roff(String($0)) }
                    .joined(separator: "\n") + "\n"
            }
        }
        for (title, lines) in parts.sections where title != "OPTIONS" {
            page += ".SH \(roff(title))\n" + section(lines)
        }
        page += ".SH SEE ALSO\n\\fBjwtverify\\fR(1)\n"
        return page
    }

    /// A help text's usage lines, its description, and its other sections (`TITLE:` at the start
    /// of a line; text after the colon belongs to the section).
    static func bodyLines(_ help: String) -> (usage: [String], description: [String], sections: [(String, [String])]) {
        var usage: [String] = []
        var description: [String] = []
        var sections: [(String, [String])] = []
        var inUsage = false
        for raw in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if raw.hasPrefix("USAGE:") {
                inUsage = true
                usage.append(String(raw.dropFirst("USAGE:".count).drop { $0 == " " }))
                continue
            }
            if inUsage {
                if raw.hasPrefix(" ") && !raw.trimmingSpaces.isEmpty {
                    usage.append(raw.trimmingSpaces)
                    continue
                }
                inUsage = false
            }
            if let colon = raw.firstIndex(of: ":"), raw.first?.isUppercase == true,
                raw[..<colon].count >= 2, raw[..<colon].allSatisfy({ $0.isUppercase || $0 == " " })
            {
                let rest = raw[raw.index(after: colon)...].trimmingSpaces
                sections.append((String(raw[..<colon]), rest.isEmpty ? [] : [rest]))
                continue
            }
            if sections.isEmpty { description.append(raw) } else { sections[sections.count - 1].1.append(raw) }
        }
        return (usage, description, sections)
    }

    /// Lines as roff: indented lines kept as laid out (examples, tables), others filled, a blank
    /// line a new paragraph.
    static func section(_ lines: [String]) -> String {
        var out = ""
        var preformatted = false
        var pending = false
        for line in lines {
            if line.trimmingSpaces.isEmpty {
                if preformatted {
                    out += ".fi\n"
                    preformatted = false
                }
                pending = !out.isEmpty
                continue
            }
            if pending {
                out += ".PP\n"
                pending = false
            }
            let indented = line.hasPrefix("  ")
            if indented && !preformatted {
                out += ".nf\n"
                preformatted = true
            } else if !indented && preformatted {
                out += ".fi\n"
                preformatted = false
            }
            out += roff(indented ? line : line.trimmingSpaces) + "\n"
        }
        if preformatted { out += ".fi\n" }
        return out
    }

    // MARK: Completions

    /// Placeholders whose values are not files: completed from a list, or not at all.
    private static func values(for option: OptionDescription) -> [String]? {
        if option.names.contains("--profile") { return VerificationPolicy.profileNames }
        if option.names.contains("--jwks") { return nil }
        guard let placeholder = option.placeholder else { return [] }
        return ["FILE", "DIR", "SRC", "LIST", "PATH", "PEM", "KEY"].contains(placeholder) ? nil : []
    }

    /// The bash script: `complete -F _jwtverify jwtverify`.
    static func bash() -> String {
        var script = """
            # bash completion for jwtverify (generated by 'jwtverify completion bash', from its option tables)
            _jwtverify() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(CommandCatalog.entries.map(\.name).joined(separator: " ")) --help --version" -- "$cur"))
                    return
                fi
                local options="" subcommands="" files="" none="" profiles="\(VerificationPolicy.profileNames.joined(separator: " "))"
                case ${COMP_WORDS[1]} in

            """
        for entry in CommandCatalog.entries {
            let names = entry.options.flatMap(\.names)
            let files = entry.options.filter { $0.placeholder != nil && values(for: $0) == nil }.flatMap(\.names)
            let none = entry.options.filter { $0.placeholder != nil && values(for: $0) == [] }.flatMap(\.names)
            script +=
                "        \(entry.name)) options=\"\(names.joined(separator: " "))\"; subcommands=\"\(entry.subcommands.joined(separator: " "))\""
            script += "; files=\"\(files.joined(separator: " "))\"; none=\"\(none.joined(separator: " "))\" ;;\n"
        }
        script += """
                    *) return ;;
                esac
                case " $files " in *" $prev "*) COMPREPLY=($(compgen -f -- "$cur")); return ;; esac
                case " $none " in *" $prev "*) COMPREPLY=(); return ;; esac
                if [ "$prev" = --profile ]; then COMPREPLY=($(compgen -W "$profiles" -- "$cur")); return; fi
                if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$options" -- "$cur")); return; fi
                if [ "$COMP_CWORD" -eq 2 ] && [ -n "$subcommands" ]; then
                    COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
                    [ "${COMP_WORDS[1]}" = audit ] || return
                fi
                COMPREPLY+=($(compgen -f -- "$cur"))
            }
            complete -o filenames -F _jwtverify jwtverify

            """
        return script
    }

    /// Text inside a single-quoted zsh `_arguments` spec: `[`, `]` and `:` escaped.
    private static func zshText(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "'": out += "'\\''"
            case "[", "]", ":", "\\": out += "\\" + String(character)
            default: out.append(character)
            }
        }
        return out
    }

    /// The zsh script (`#compdef jwtverify`).
    static func zsh() -> String {
        var script = """
            #compdef jwtverify
            # zsh completion for jwtverify (generated by 'jwtverify completion zsh', from its option tables)
            _jwtverify() {
              local -a commands
              commands=(

            """
        for entry in CommandCatalog.entries { script += "    '\(entry.name):\(zshText(entry.summary))'\n" }
        script += """
              )
              if (( CURRENT == 2 )); then
                _describe -t commands 'jwtverify command' commands
                return
              fi
              local command=$words[2]
              shift words
              (( CURRENT-- ))
              case $command in

            """
        for entry in CommandCatalog.entries {
            script += "    \(entry.name))\n      _arguments -S \\\n"
            for option in entry.options {
                let help = zshText(String(option.help.split(separator: "\n").first ?? ""))
                for name in option.names {
                    var spec = "'\(name)[\(help)]"
                    if let placeholder = option.placeholder {
                        switch values(for: option) {
                        case nil: spec += ":\(zshText(placeholder)):_files"
                        case let list? where !list.isEmpty:
                            spec += ":\(zshText(placeholder)):(\(list.joined(separator: " ")))"
                        default: spec += ":\(zshText(placeholder)): "
                        }
                    }
                    script += "        \(spec)' \\\n"
                }
            }
            if !entry.subcommands.isEmpty && entry.name != "audit" {
                script += "        '1:subcommand:(\(entry.subcommands.joined(separator: " ")))' \\\n"
            }
            script += "        '*:file:_files'\n      ;;\n"
        }
        script += """
              esac
            }
            _jwtverify "$@"

            """
        return script
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
