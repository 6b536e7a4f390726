/// Parses `--now` values: Unix seconds (fractions allowed) or an RFC 3339 timestamp such as
/// `2023-11-14T22:30:00Z` or `2023-11-14T23:30:00.5+01:00`.
package enum Timestamp {
    package static func parse(_ text: String) -> Double? {
        if let seconds = Double(text), seconds.isFinite, seconds >= 0, text.allSatisfy({ $0.isNumber || $0 == "." }) {
            return seconds
        }
        return rfc3339(Array(text.utf8))
    }

    private static func rfc3339(_ s: [UInt8]) -> Double? {
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= s.count else { return nil }
            var value = 0
            for i in range {
                guard s[i] >= 0x30 && s[i] <= 0x39 else { return nil }
                value = value * 10 + Int(s[i] - 0x30)
            }
            return value
        }
        guard s.count >= 20, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"),
            s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: "t") || s[10] == UInt8(ascii: " "),
            s[13] == UInt8(ascii: ":"), s[16] == UInt8(ascii: ":"),
            let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
            let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < s.count && s[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            let start = i
            while i < s.count && s[i] >= 0x30 && s[i] <= 0x39 {
                fraction += Double(s[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < s.count else { return nil }
        var offset = 0
        if s[i] == UInt8(ascii: "Z") || s[i] == UInt8(ascii: "z") {
            i += 1
        } else if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
            guard s.count == i + 6, s[i + 3] == UInt8(ascii: ":"), let oh = digits((i + 1)..<(i + 3)),
                let om = digits((i + 4)..<(i + 6)), oh < 24, om < 60
            else { return nil }
            offset = (oh * 3600 + om * 60) * (s[i] == UInt8(ascii: "+") ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == s.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        guard seconds >= 0 else { return nil }
        return Double(seconds) + fraction
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}

extension Timestamp {
    /// `2026-11-29T20:10:00Z` for a time in seconds since the epoch (fractions dropped).
    package static func format(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let days = total >= 0 ? total / 86400 : (total - 86399) / 86400
        let secondsOfDay = total - days * 86400
        // Howard Hinnant's civil_from_days.
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return
            "\(year)-\(two(month))-\(two(day))T\(two(secondsOfDay / 3600)):\(two(secondsOfDay % 3600 / 60)):\(two(secondsOfDay % 60))Z"
    }
}
