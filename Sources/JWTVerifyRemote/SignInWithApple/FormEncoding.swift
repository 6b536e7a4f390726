/// `application/x-www-form-urlencoded` bodies, as Apple's endpoints take them.
enum FormEncoding {
    /// `name=value&…`, each part percent-encoded (space as `+`), in the order given.
    static func encode(_ fields: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, (name, value)) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            append(name, to: &out)
            out.append(UInt8(ascii: "="))
            append(value, to: &out)
        }
        return out
    }

    private static func append(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
    }
}
