package video

import (
	"strconv"
	"strings"
)

// sampleLayout is how decoded frames are delivered: gray (one channel) or
// RGB (three), with 8 or 16 bits per sample.
type sampleLayout struct {
	gray bool
	deep bool // 16-bit samples
}

// layoutOf chooses the output layout of a stream. Gray pixel formats
// (gray*, ya*, monow, monob) and 4:0:0 H.264 (which FFmpeg decodes as
// yuv420p) stay gray; everything else, palette formats included, becomes
// RGB. A format with more than 8 bits per component (a trailing bit count
// such as yuv420p10le, gray16le, rgb48le, p010le) gives 16-bit samples.
func layoutOf(ix *index) sampleLayout {
	pf := ix.pixFmt
	return sampleLayout{
		gray: ix.mono || strings.HasPrefix(pf, "gray") || strings.HasPrefix(pf, "ya") || pf == "monow" || pf == "monob",
		deep: bitsOf(pf) > 8,
	}
}

// bitsOf returns the bits per component a pixel format name states, or 8.
// Names ending in a number and an endianness carry it (yuv420p10le: 10;
// rgb48le: 48 over three components); packed 4- and 5-bit RGB formats
// (rgb444le, rgb555le, rgb565le) are 8 or fewer.
func bitsOf(pixFmt string) int {
	s := strings.TrimSuffix(strings.TrimSuffix(pixFmt, "le"), "be")
	if s == pixFmt {
		return 8
	}
	start := len(s)
	for start > 0 && s[start-1] >= '0' && s[start-1] <= '9' {
		start--
	}
	n, err := strconv.Atoi(s[start:])
	if err != nil {
		return 8
	}
	switch n {
	case 444, 555, 565:
		return 5
	}
	return n
}

// outPixFmt is the ffmpeg output pixel format of a layout: planar and
// little-endian, so that planes land in the chunk without shuffling
// samples. gbrp planes are G, B, R.
func (l sampleLayout) outPixFmt() string {
	switch {
	case l.gray && l.deep:
		return "gray16le"
	case l.gray:
		return "gray"
	case l.deep:
		return "gbrp16le"
	}
	return "gbrp"
}

// channels is the number of samples per pixel.
func (l sampleLayout) channels() int {
	if l.gray {
		return 1
	}
	return 3
}

// sampleBytes is the size of one sample.
func (l sampleLayout) sampleBytes() int {
	if l.deep {
		return 2
	}
	return 1
}

// filter is the ffmpeg video filter chain that turns decoded frames into
// w×h output frames: a fixed size (a stream that changes size midway still
// gives frames of one size), and for gray streams the stored values
// unchanged, whatever range the stream is flagged with (bit depths widen
// by bit replication). Colour goes through ffmpeg's own conversion to
// packed RGB (rgb24, or rgb48le beyond 8 bits), with the scaler flags the
// ffmpeg command gives every scale filter, so that frames equal those of
// `ffmpeg -i FILE -pix_fmt rgb24` (what PyAV, imageio and PIMS return);
// the packed samples are then split into planes, a lossless step.
func (l sampleLayout) filter(w, h int) string {
	size := "scale=w=" + strconv.Itoa(w) + ":h=" + strconv.Itoa(h)
	switch {
	case l.gray:
		return size + ":in_range=full:out_range=full,format=" + l.outPixFmt()
	case l.deep:
		return size + ",format=rgb48le,format=" + l.outPixFmt()
	}
	return size + ",format=rgb24,format=" + l.outPixFmt()
}

// planeOrder gives, for each plane ffmpeg writes in turn, the channel it
// holds in the chunk: gbrp is written G, B, R and the chunk is R, G, B.
func (l sampleLayout) planeOrder() []int {
	if l.gray {
		return []int{0}
	}
	return []int{1, 2, 0}
}
