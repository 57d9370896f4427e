import TouchSystem

/// Chooses devices: by name (shell-style `*` and `?` wildcards), "vvvv:pppp", devnode, or a udev
/// property "KEY=VALUE". Every criterion given must match.
public struct DeviceSelector: Equatable, Sendable, CustomStringConvertible {
    public var name: String?
    public var vendorProduct: (vendor: UInt16, product: UInt16)?
    public var devnode: String?
    public var property: (key: String, value: String)?

    public init(name: String? = nil, vendorProduct: (UInt16, UInt16)? = nil, devnode: String? = nil,
                property: (String, String)? = nil) {
        self.name = name
        self.vendorProduct = vendorProduct.map { (vendor: $0.0, product: $0.1) }
        self.devnode = devnode
        self.property = property.map { (key: $0.0, value: $0.1) }
    }

    /// Parses "vvvv:pppp".
    public static func parseVendorProduct(_ text: String) -> (UInt16, UInt16)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...4).contains($0.count) }),
              let v = UInt16(parts[0], radix: 16), let p = UInt16(parts[1], radix: 16) else { return nil }
        return (v, p)
    }

    /// The vendor and product criterion as "vvvv:pppp" (what `parseVendorProduct` reads back), if given.
    public var vendorProductText: String? { vendorProduct.map { TouchInput.vendorProductText($0.vendor, $0.product) } }

    /// Parses "KEY=VALUE".
    public static func parseProperty(_ text: String) -> (String, String)? {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { return nil }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }

    public func matches(_ info: DeviceInfo) -> Bool {
        if let name, !DeviceSelector.glob(name, info.name) { return false }
        if let vp = vendorProduct, vp.vendor != info.vendor || vp.product != info.product { return false }
        if let devnode, devnode != info.devnode { return false }
        if let property, info.properties[property.key] != property.value { return false }
        return true
    }

    /// Shell-style matching: `*` any run, `?` one character.
    public static func glob(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) {
                pi += 1; ti += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi; mark = ti; pi += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; ti = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    public var description: String {
        var parts: [String] = []
        if let name { parts.append("name \"\(name)\"") }
        if let vp = vendorProductText { parts.append(vp) }
        if let devnode { parts.append(devnode) }
        if let property { parts.append("\(property.key)=\(property.value)") }
        return parts.isEmpty ? "any touchscreen" : parts.joined(separator: ", ")
    }

    public static func == (a: DeviceSelector, b: DeviceSelector) -> Bool {
        a.name == b.name && a.devnode == b.devnode
            && a.vendorProduct?.vendor == b.vendorProduct?.vendor && a.vendorProduct?.product == b.vendorProduct?.product
            && a.property?.key == b.property?.key && a.property?.value == b.property?.value
    }
}
