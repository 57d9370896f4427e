extension StringProtocol {
    /// Without the leading and trailing characters in `set` (no Foundation here): a header's value, a
    /// sysfs attribute's number.
    public func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
