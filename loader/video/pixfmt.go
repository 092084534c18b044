package video

import (
	"strconv"
	"strings"
)

// sampleLayout is how decoded frames are delivered: gray (one channel) or
// RGB (three), with 8 or 16 bits per sample, and the filters that make
// them.
type sampleLayout struct {
	gray bool
	deep bool // 16-bit samples
	// zimg converts deep YUV with zscale: swscale's 16-bit RGB output
	// puts white at 65283, not 65535.
	zimg bool
	// matrix is zscale's input matrix when the stream does not name one
	// (swscale's default, BT.601); "" to take the stream's.
	matrix string
}

// layoutOf chooses the output layout of a stream. Gray pixel formats
// (gray*, ya*, monow, monob) and 4:0:0 H.264 (which FFmpeg decodes as
// yuv420p) stay gray; everything else, palette formats included, becomes
// RGB. A format with more than 8 bits per component (a trailing bit count
// such as yuv420p10le, gray16le, rgb48le, p010le) gives 16-bit samples
// spanning the full 0..65535 range.
func layoutOf(ix *index) sampleLayout {
	pf := ix.pixFmt
	l := sampleLayout{
		gray: ix.mono || strings.HasPrefix(pf, "gray") || strings.HasPrefix(pf, "ya") || pf == "monow" || pf == "monob",
		deep: bitsOf(pf) > 8,
	}
	l.zimg = l.deep && !l.gray && !rgbFamily(pf)
	if l.zimg {
		switch ix.colorSpace {
		case "", "unknown", "unspecified", "reserved", "gbr":
			l.matrix = "470bg"
		}
	}
	return l
}

// rgbFamily reports whether a pixel format holds RGB (or CIE XYZ, or raw
// Bayer) samples rather than YUV.
func rgbFamily(pf string) bool {
	for _, p := range []string{"gbr", "rgb", "bgr", "argb", "abgr", "x2rgb", "x2bgr", "0rgb", "0bgr", "xyz", "bayer"} {
		if strings.HasPrefix(pf, p) {
			return true
		}
	}
	return false
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
// by bit replication). Colour converts with the stream's matrix and range
// to full-range RGB.
func (l sampleLayout) filter(w, h int) string {
	size := "w=" + strconv.Itoa(w) + ":h=" + strconv.Itoa(h)
	switch {
	case l.gray:
		size = "scale=" + size + ":in_range=full:out_range=full"
	case l.zimg:
		size = "zscale=" + size + ":range=full"
		if l.matrix != "" {
			size += ":matrixin=" + l.matrix
		}
	default:
		size = "scale=" + size
	}
	return size + ",format=" + l.outPixFmt()
}

// planeOrder gives, for each plane ffmpeg writes in turn, the channel it
// holds in the chunk: gbrp is written G, B, R and the chunk is R, G, B.
func (l sampleLayout) planeOrder() []int {
	if l.gray {
		return []int{0}
	}
	return []int{1, 2, 0}
}
