extension Array where Element: AnyObject {
    /// Calls `body` with each element without retaining it: for the loops that run on every frame
    /// (ten touches, a dozen recognizers), where a retain and a release per element are a good part
    /// of the cost.
    ///
    /// Safe only while the array itself is kept alive and unchanged for the whole loop: the caller's
    /// `let`, or a property that nothing called from `body` can replace.
    @inline(__always)
    func forEachUnretained(_ body: (Element) -> Void) {
        withUnsafeBufferPointer { elements in
            for i in 0..<elements.count {
                unowned(unsafe) let element = elements[i]
                body(element)
            }
        }
    }
}
