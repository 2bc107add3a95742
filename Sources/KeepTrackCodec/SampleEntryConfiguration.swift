import KeepTrack

extension Track {
    /// A child box of the first sample entry, looked up directly or inside QuickTime's `wave` box.
    func sampleEntryChild(_ type: FourCC) -> Box? {
        guard let entry = sampleEntries.first else { return nil }
        return entry.first(type) ?? entry.first("wave")?.first(type)
    }

    /// The `esds` of an `mp4a` track, decoded (errors name the box path and offset).
    var elementaryStreamDescriptor: ElementaryStreamDescriptorBox? {
        get throws {
            guard let box = sampleEntryChild("esds") else { return nil }
            return try ElementaryStreamDescriptorBox(box: box, path: path + "/mdia/minf/stbl/stsd/\(format?.description ?? "")/esds")
        }
    }
}
