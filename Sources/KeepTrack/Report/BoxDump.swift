/// The box tree as text, for `keeptrack dump` and golden tests: one line per box with its path,
/// byte offset, size and header form, followed by the decoded fields of every box that has a typed
/// view (sample entries of audio and video tracks included).
public struct BoxDump: Sendable {
    public struct Options: Sendable {
        /// Deepest level shown (1 = top-level boxes only); nil shows everything.
        public var maximumDepth: Int?
        /// Print every entry of long tables instead of the first few.
        public var allEntries = false
        /// Replace the values of metadata keys containing `location` (GPS position) with `<redacted>`.
        public var redactLocation = false
        public init(maximumDepth: Int? = nil, allEntries: Bool = false, redactLocation: Bool = false) {
            self.maximumDepth = maximumDepth
            self.allEntries = allEntries
            self.redactLocation = redactLocation
        }
    }

    /// Entries shown per table unless `allEntries`.
    public static let defaultEntryLimit = 10
    static let redacted = "<redacted>"

    public let boxes: [Box]
    public let options: Options

    public init(boxes: [Box], options: Options = Options()) {
        self.boxes = boxes
        self.options = options
    }

    public var text: String { lines.joined(separator: "\n") }

    public var lines: [String] {
        var lines: [String] = []
        var counts: [FourCC: Int] = [:]
        for box in boxes {
            let name = Self.indexedName(box.type, counts: &counts)
            dump(box, path: name, context: ParseContext(), locationItems: [], redact: false, into: &lines)
        }
        return lines
    }

    /// `trak`, `trak[2]`, ... as the parser names boxes in error messages.
    static func indexedName(_ type: FourCC, counts: inout [FourCC: Int]) -> String {
        let index = counts[type, default: 0]
        counts[type] = index + 1
        return index == 0 ? type.description : "\(type)[\(index + 1)]"
    }

    /// Dumps `box` and its children; `context` is where the box is, walked as the parser walks it.
    func dump(_ box: Box, path: String, context: ParseContext, locationItems: Set<FourCC>, redact: Bool,
              into lines: inout [String]) {
        let depth = context.ancestors.count
        let indent = String(repeating: "  ", count: depth)
        lines.append(indent + path + "  " + describe(box))
        let fieldIndent = indent + "    "
        for line in fields(of: box, context: context, redact: redact) {
            lines.append(fieldIndent + line)
        }
        guard box.isContainer else { return }
        if let maximumDepth = options.maximumDepth, depth + 1 >= maximumDepth {
            if !box.children.isEmpty { lines.append(indent + "  … \(box.children.count) child boxes below depth \(maximumDepth)") }
            return
        }
        var locationItems = locationItems
        if box.type == "meta", options.redactLocation { locationItems = Self.locationItems(in: box) }
        var counts: [FourCC: Int] = [:]
        var inner = context.entering(box.type)
        for child in box.children {
            inner.noting(child.type, payload: child.payload)
            let childPath = path + "/" + Self.indexedName(child.type, counts: &counts)
            let redactChild = redact || (box.type == "ilst" && locationItems.contains(child.type)) || (options.redactLocation && Self.locationBoxes.contains(child.type))
            dump(child, path: childPath, context: inner, locationItems: locationItems, redact: redactChild, into: &lines)
        }
    }

    func describe(_ box: Box) -> String {
        var parts = ["offset \(box.offset)", "size \(box.size)"]
        switch box.headerForm {
        case .compact: parts.append("32-bit size")
        case .large: parts.append("64-bit size")
        case .toEnd: parts.append("size 0 (to end of file)")
        }
        if let userType = box.userType { parts.append("uuid " + FieldDumper.hex(userType)) }
        switch box.content {
        case .external: parts.append("media data, not read")
        case .container(let container):
            if !container.prefix.isEmpty { parts.append("fields \(container.prefix.count) bytes") }
            parts.append("\(container.children.count) children")
            if !container.trailer.isEmpty { parts.append("trailer \(container.trailer.count) bytes") }
        case .bytes: break
        }
        return parts.joined(separator: "  ")
    }

    /// Decoded fields of `box` when a typed view exists; sample entries use the prefix view of their track's kind.
    func fields(of box: Box, context: ParseContext, redact: Bool) -> [String] {
        let limit = options.allEntries ? Int.max : Self.defaultEntryLimit
        var decoded: (any FieldCodable)?
        do {
            if context.parent == "stsd" {
                guard box.isContainer, let view = BoxSchema.sampleEntryView(handler: context.handler) else { return [] }
                decoded = try view.init(decoding: box.payload)
            } else if let view = BoxRegistry.view(for: box.type, parent: context.parent, grandparent: context.grandparent), !isExternal(box) {
                decoded = try view.init(box: box, path: "")
            }
        } catch {
            return ["<cannot decode: \(error)>"]
        }
        guard let decoded else { return [] }
        var lines = decoded.dumpLines(limit: limit)
        if let annotated = decoded as? any DumpAnnotated { lines += annotated.annotationLines }
        if redact, box.type == "data" {
            lines = lines.map { line in
                guard let colon = line.firstIndex(of: ":") else { return line }
                let name = line[..<colon]
                return name == "value" || name == "text" ? "\(name): \(Self.redacted)" : line
            }
        }
        return lines
    }

    func isExternal(_ box: Box) -> Bool {
        if case .external = box.content { return true }
        return false
    }

    /// User-data boxes that hold a position themselves (QuickTime `©xyz`, 3GPP `loci`).
    static let locationBoxes: Set<FourCC> = [FourCC(rawValue: 0xA978_797A), "loci"]

    /// The `ilst` item types (1-based key indexes) of a `meta` box whose key names mention a location.
    static func locationItems(in meta: Box) -> Set<FourCC> {
        var items: Set<FourCC> = [FourCC(rawValue: 0xA978_797A)]
        guard let keysBox = meta.first("keys"), let keys = try? MetadataKeysBox(box: keysBox) else { return items }
        for (index, key) in keys.keys.enumerated() where key.text.lowercased().contains("location") {
            items.insert(FourCC(rawValue: UInt32(index + 1)))
        }
        return items
    }
}
