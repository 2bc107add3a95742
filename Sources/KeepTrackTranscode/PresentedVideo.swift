import KeepTrack
import KeepTrackFraming

/// When a video track's frames are presented: the sample table's times, and which frames its edit list shows.
public enum PresentedVideo {
    /// Every frame's presentation time from the sample table, when they are all distinct.
    public static func timeline(of video: Track) -> PresentationTimeline? {
        PresentationTimeline(presentationTimes: presentationTimes(of: video))
    }

    public static func presentationTimes(of video: Track) -> [Int64] {
        video.sampleTable.samples.map { Int64($0.decodeTime) + $0.compositionOffset }
    }

    /// Which frames the track's edit list shows, and when (`ShownFrames`): empty edits delay, a presented edit
    /// shows its media range. An edit list a plan cannot follow (a rate other than 1, edits going back in the
    /// media) counts every frame as shown, with a note saying why.
    public static func shownFrames(of video: Track) -> (frames: ShownFrames, note: String?) {
        let times = presentationTimes(of: video)
        let timescale = Int64(max(video.mediaHeader.timescale, 1))
        let everyFrame = ShownFrames(presentationTimes: times, timescale: timescale)
        guard let entries = video.editList?.entries, !entries.isEmpty else { return (everyFrame, nil) }
        func unusable(_ why: String) -> (frames: ShownFrames, note: String?) {
            (everyFrame, "the video's edit list is not followed (\(why)): every frame is planned as shown, at its media time")
        }
        guard video.movieTimescaleKnown || video.editsInFallbackScale, video.movieTimescale > 0 else { return unusable("the movie has no time scale") }
        let movieScale = Double(video.movieTimescale)
        var edits: [ShownFrames.Edit] = []
        var movieStart = 0.0
        for (index, entry) in entries.enumerated() {
            let seconds = Double(entry.segmentDuration) / movieScale
            defer { movieStart += seconds }
            if entry.mediaTime == -1 { continue }  // an empty edit: a delay
            guard entry.mediaTime >= 0, entry.rateInteger == 1, entry.rateFraction == 0 else {
                return unusable("edit \(index + 1) plays at rate \(entry.rateInteger).\(entry.rateFraction) from \(entry.mediaTime)")
            }
            // A zero duration on the last edit means "the rest of the media" in some writers (as EditTimeline reads it).
            // The end rounds up: a frame that starts before the edit's end is shown.
            let open = entry.segmentDuration == 0 && index == entries.count - 1
            let mediaDuration = (seconds * Double(timescale)).rounded(.up)
            edits.append(ShownFrames.Edit(mediaStart: entry.mediaTime,
                                          mediaDuration: open || mediaDuration >= 0x1p62 ? nil : Int64(mediaDuration),
                                          movieStart: movieStart))
        }
        guard let frames = ShownFrames(presentationTimes: times, timescale: timescale, edits: edits) else {
            return unusable("its edits go back in the media")
        }
        return (frames, nil)
    }
}
