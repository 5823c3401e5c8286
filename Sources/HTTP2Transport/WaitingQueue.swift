/// Items waiting on a connection, first in first out: appends and pops in O(1) (a head index, compacted
/// once the popped part is large).
struct WaitingQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }

    mutating func append(_ element: Element) {
        items.append(element)
    }

    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Empties the queue, returning what was in it.
    mutating func drain() -> ArraySlice<Element> {
        let rest = items[head...]
        items = []
        head = 0
        return rest
    }

    /// Removes the elements `shouldRemove` picks, keeping the others in order; returns the removed ones.
    mutating func remove(where shouldRemove: (Element) -> Bool) -> [Element] {
        var removed: [Element] = []
        var kept: [Element] = []
        for element in items[head...] {
            if shouldRemove(element) { removed.append(element) } else { kept.append(element) }
        }
        guard !removed.isEmpty else { return [] }
        items = kept
        head = 0
        return removed
    }
}
