// Package video reads video files (MP4, MOV, AVI, Matroska/WebM, any codec
// Debian's ffmpeg decodes) frame by frame, exactly, through the ffmpeg and
// ffprobe programs. It registers the format "video" with the loader.
//
// A video is a movie of frames in presentation order: axes "TYX" for gray
// streams (pixel formats gray*, ya*, monow, monob, and 4:0:0 H.264, which
// FFmpeg decodes as yuv420p), whose stored values are delivered unchanged
// whatever range the stream is flagged with, and "TCYX" with C = 3 (R, G,
// B) for every other stream, converted to RGB as ffmpeg converts it to
// rgb24 (or rgb48le, for more than 8 bits per component) by default, with
// the stream's matrix and range: the values of `ffmpeg -i FILE -pix_fmt
// rgb24`, which PyAV, imageio and PIMS return too. Samples are uint8, or
// uint16 for streams with more than 8 bits per component: gray ones span
// 0..65535 by bit replication, colour ones are ffmpeg's rgb48le values
// (whose white, for video-range YUV, is 65283). A display rotation of 90
// or 270 degrees is applied, as players do (width and height swap). The T
// spacing is the mean frame duration in seconds, the T origin the first
// frame's time; one chunk is one frame.
//
// Opening a video lists its packets with ffprobe (demuxing, no decoding)
// and keeps the resulting frame index in a disk cache (see CacheDir), so
// that opening it again is instant. Frames are found by timestamp, never
// by assuming a constant rate: a read of frame t starts ffmpeg at the
// keyframe at or before t and lets through frames from t's timestamp on
// (packets flagged discard, as an edit list makes them, and empty ones
// are not frames). The running ffmpeg is kept as a cursor, so that reading
// on (playback, scrubbing forward) continues it; a small pool of cursors
// serves a few access patterns at once, a cost model learnt from past
// reads decides between reading on and starting anew, and the frames just
// before a backward step are kept, so that walking backwards does not
// start ffmpeg for every frame.
//
// A read never returns a frame other than the one a decode from the
// start of the file gives. ffmpeg logs the timestamp of every frame it
// decodes, so that each frame is known to be the one the index has there
// (a decoder that drops frames after a seek, as it does at a recovery
// point whose pictures are whole only later, is caught at once); and when
// the decoder reports a problem after a seek (an error, a corrupt frame),
// the frames it may have touched are compared, once per keyframe, with a
// decode from the keyframe before. A keyframe that fails either way is
// not sought to again: reads start at an earlier one, or at the start.
//
// Limits: packets must carry presentation timestamps (or, for codecs
// without reordering, decode timestamps); field-coded streams, which
// spend two packets on one frame, are miscounted; a stream whose frame
// size changes midway is scaled to the size ffprobe reports.
package video

import (
	"context"
	"os/exec"

	"vastview/loader"
)

// format is video as the registry knows it: an AVI file (RIFF....AVI ), a
// Matroska/WebM file (EBML magic 1A 45 DF A3), or an ISO base media file
// (see isoMedia).
var format = loader.Format{
	Name: "video", Titles: []string{"video"}, Open: Open,
	Exts:  []string{".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm"},
	Magic: []loader.Magic{{Bytes: "RIFF????AVI "}, {Bytes: "\x1a\x45\xdf\xa3"}},
	Sniff: isoMedia,
}

func init() { loader.Register(format) }

// Open opens the video file at path. It needs ffmpeg and ffprobe on PATH.
// The returned Source (a *Source) is safe for concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	s, err := OpenVideo(ctx, path)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenVideo is Open with the concrete type, which also tells frame times.
func OpenVideo(ctx context.Context, path string) (*Source, error) {
	return openWith(ctx, path, options{})
}

// openWith is OpenVideo with the Source's options.
func openWith(ctx context.Context, path string, opts options) (*Source, error) {
	ffprobe, err := tool("ffprobe")
	if err != nil {
		return nil, err
	}
	ffmpeg, err := tool("ffmpeg")
	if err != nil {
		return nil, err
	}
	id, err := identityOf(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	ix := loadIndex(id)
	if ix == nil {
		ix, err = runProbe(ctx, ffprobe, path)
		if err != nil {
			return nil, err
		}
		storeIndex(id, ix)
	}
	return newSource(path, ffmpeg, ix, opts)
}

// tool finds a program on PATH, or says which package brings it.
func tool(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", formatError("%s not found (install the ffmpeg package)", name)
	}
	return p, nil
}

// Match reports whether head starts like a video container: an ISO base
// media file (MP4, MOV: an "ftyp" box, not of a still-image brand such as
// HEIF or AVIF; or, for files named .mov, .mp4, .m4v, .qt or .3gp, a
// leading moov, mdat, free, wide or skip box), an AVI file (RIFF....AVI )
// or a Matroska/WebM file (EBML magic 1A 45 DF A3). It is safe for
// concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// isoMedia reports whether head starts an ISO base media file (MP4, MOV):
// an "ftyp" box, not of a still-image brand such as HEIF or AVIF; or, for
// files named .mov, .mp4, .m4v, .qt or .3gp, a leading moov, mdat, free,
// wide or skip box.
func isoMedia(path string, head []byte) bool {
	switch {
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		return !stillBrand[string(head[8:12])]
	case len(head) >= 8 && looseBox[string(head[4:8])]:
		return loader.HasExt(path, ".mov", ".mp4", ".m4v", ".qt", ".3gp")
	}
	return false
}

// stillBrand holds ISO-BMFF major brands of still-image formats.
var stillBrand = map[string]bool{
	"mif1": true, "msf1": true, "heic": true, "heix": true, "heim": true,
	"heis": true, "hevc": true, "hevx": true, "avif": true, "avis": true,
	"crx ": true,
}

// looseBox holds box types an old QuickTime file may start with.
var looseBox = map[string]bool{"moov": true, "mdat": true, "free": true, "wide": true, "skip": true}

// Frames returns the number of frames. It is safe for concurrent use.
func (s *Source) Frames() int { return s.ix.frames() }

// Time returns frame t's presentation time in seconds, as ffprobe reports
// it (best_effort_timestamp_time); t must be in 0..Frames()-1. It is safe
// for concurrent use.
func (s *Source) Time(t int) float64 { return s.ix.seconds(s.ix.pts[t]) }

// Meta describes the movie. It is safe for concurrent use.
func (s *Source) Meta() *loader.Meta { return s.meta }

// meta builds the movie's description from its index.
func metaOf(ix *index, l sampleLayout) *loader.Meta {
	w, h := ix.size()
	n := ix.frames()
	dt, hi := loader.Uint8, 255.0
	if l.deep {
		dt, hi = loader.Uint16, 65535
	}
	axes, shape, chunk := "TYX", []int{n, h, w}, []int{1, h, w}
	spacing, units := []float64{ix.meanDuration(), 1, 1}, []string{"second", "", ""}
	chans := []loader.Channel{{Lo: 0, Hi: hi, HasWindow: true}}
	if !l.gray {
		axes, shape, chunk = "TCYX", []int{n, 3, h, w}, []int{1, 3, h, w}
		spacing, units = []float64{ix.meanDuration(), 1, 1, 1}, []string{"second", "", "", ""}
		chans = []loader.Channel{
			{Label: "R", Color: [3]uint8{255, 0, 0}, HasColor: true, Hi: hi, HasWindow: true},
			{Label: "G", Color: [3]uint8{0, 255, 0}, HasColor: true, Hi: hi, HasWindow: true},
			{Label: "B", Color: [3]uint8{0, 0, 255}, HasColor: true, Hi: hi, HasWindow: true},
		}
	}
	m := loader.NewMeta("video", axes, shape, dt, chunk, spacing, units)
	m.Levels[0].Translation[0] = ix.seconds(ix.pts[0])
	m.Channels = chans
	m.RGB = !l.gray
	return m
}

// PixFmt is the ffmpeg pixel format frames are decoded to ("gray",
// "rgb24", ...), for comparing with other ffmpeg runs.
func (s *Source) PixFmt() string { return s.layout.outPixFmt() }

// Path is the video file's path.
func (s *Source) Path() string { return s.path }
