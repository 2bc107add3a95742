/// The one list of typed box views, so dumps and round-trip tests find every view in one place.
public enum BoxRegistry {
    public static let views: [any BoxView.Type] = [
        FileTypeBox.self, MovieHeaderBox.self, TrackHeaderBox.self, EditListBox.self, MediaHeaderBox.self,
        ExtendedLanguageBox.self, HandlerBox.self, ColourInformationBox.self, HEVCConfigurationBox.self,
        AVCConfigurationBox.self, DolbyVisionConfigurationBox.self, TimeToSampleBox.self, CompositionOffsetBox.self,
        CompositionShiftBox.self, SyncSampleBox.self, SampleDependencyBox.self, SampleToChunkBox.self,
        SampleSizeBox.self, CompactSampleSizeBox.self, ChunkOffsetBox.self, ChunkLargeOffsetBox.self,
        SampleGroupDescriptionBox.self, SampleToGroupBox.self, MetadataKeysBox.self, MetadataDataBox.self,
        ElementaryStreamDescriptorBox.self, AC3SpecificBox.self, EAC3SpecificBox.self, MLPSpecificBox.self,
        AC4SpecificBox.self, ALACSpecificBox.self, OpusSpecificBox.self, FLACSpecificBox.self, AMRSpecificBox.self,
        DataEntryBox.self, OriginalFormatBox.self, SchemeTypeBox.self,
        TrackExtendsBox.self, MovieExtendsHeaderBox.self, MovieFragmentHeaderBox.self,
        TrackFragmentHeaderBox.self, TrackFragmentDecodeTimeBox.self, TrackRunBox.self, SegmentIndexBox.self,
        TrackFragmentRandomAccessBox.self, MovieFragmentRandomAccessOffsetBox.self,
        StereoViewInformationBox.self, HeroEyeBox.self, StereoBaselineBox.self, ProjectionInformationBox.self,
        HorizontalFieldOfViewBox.self, ChapterListBox.self,
    ]

    static let byType: [FourCC: any BoxView.Type] = {
        var table: [FourCC: any BoxView.Type] = [:]
        for view in views { for type in view.types { table[type] = view } }
        return table
    }()

    /// The view for a box of `type` under `parent`. Context matters: any child of `tref` is a
    /// reference list, `keys` is typed only inside `meta`, and `data` only inside `ilst` items.
    public static func view(for type: FourCC, parent: FourCC?, grandparent: FourCC? = nil) -> (any BoxView.Type)? {
        if parent == "tref" { return TrackReferenceTypeBox.self }
        if type == "keys" { return parent == "meta" ? MetadataKeysBox.self : nil }
        if type == "data" { return grandparent == "ilst" ? MetadataDataBox.self : nil }
        if type == "hdlr", parent == "meta" { return HandlerBox.self }
        // `alac` is both the sample entry (in stsd) and the magic cookie inside it.
        if type == "alac" { return parent == "stsd" ? nil : ALACSpecificBox.self }
        return byType[type]
    }
}
