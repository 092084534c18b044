package video

import (
	"bytes"
	"os/exec"
	"testing"
)

// colourFixtures are small colour videos of the stream kinds the package
// doc names: 4:2:0 and 4:4:4 H.264, 10-bit H.264, full-range (yuvj) MJPEG,
// a stream that names its matrix (BT.709) and 10-bit RGB.
var colourFixtures = []struct {
	name string
	args []string
}{
	{"h264_yuv420p.mp4", []string{"-c:v", "libx264", "-pix_fmt", "yuv420p"}},
	{"h264_yuv444p.mp4", []string{"-c:v", "libx264", "-pix_fmt", "yuv444p"}},
	{"h264_yuv420p10.mkv", []string{"-c:v", "libx264", "-pix_fmt", "yuv420p10le"}},
	{"h264_yuv444p10.mkv", []string{"-c:v", "libx264", "-pix_fmt", "yuv444p10le"}},
	{"mjpeg_yuvj420p.avi", []string{"-c:v", "mjpeg", "-q:v", "4"}},
	{"h264_bt709.mp4", []string{"-vf", "scale=out_color_matrix=bt709", "-c:v", "libx264", "-pix_fmt", "yuv420p",
		"-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"}},
	{"ffv1_gbrp10.mkv", []string{"-c:v", "ffv1", "-pix_fmt", "gbrp10le"}},
}

// TestColourMatchesFFmpeg checks that colour frames equal ffmpeg's own
// conversion of the whole file to packed RGB (`-pix_fmt rgb24`, or rgb48le
// for more than 8 bits), which is what PyAV, imageio and PIMS return.
func TestColourMatchesFFmpeg(t *testing.T) {
	useCache(t)
	for _, fx := range colourFixtures {
		t.Run(fx.name, func(t *testing.T) {
			args := append(append(pattern("64x48", 25), "-frames:v", "12"), fx.args...)
			s := openVideo(t, ffmpegMake(t, t.TempDir(), fx.name, args...))
			if s.meta.Axes != "TCYX" {
				t.Fatalf("axes %s, want TCYX", s.meta.Axes)
			}
			ref := packedReference(t, s)
			if len(ref) != s.Frames() {
				t.Fatalf("ffmpeg decodes %d frames, the index has %d", len(ref), s.Frames())
			}
			for f := range ref {
				got := readFrame(t, s, f)
				if mean, worst := sampleDiff(got, ref[f], s.layout.deep); worst != 0 {
					t.Fatalf("frame %d differs from ffmpeg's %s conversion: mean %.3f, max %d per sample",
						f, packedFormat(s.layout), mean, worst)
				}
			}
		})
	}
}

// packedFormat is ffmpeg's packed RGB format for a colour layout.
func packedFormat(l sampleLayout) string {
	if l.deep {
		return "rgb48le"
	}
	return "rgb24"
}

// packedReference decodes every frame of s with ffmpeg's default
// conversion to packed RGB and returns them as planar R, G, B chunks.
func packedReference(t *testing.T, s *Source) [][]byte {
	t.Helper()
	cmd := exec.Command("ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error",
		"-i", s.path, "-map", "0:V:0", "-fps_mode", "passthrough",
		"-f", "rawvideo", "-pix_fmt", packedFormat(s.layout), "pipe:1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("reference decode: %v\n%s", err, errb.String())
	}
	raw := out.Bytes()
	if len(raw)%s.frameBytes != 0 {
		t.Fatalf("reference decode: %d bytes is not a whole number of %d-byte frames", len(raw), s.frameBytes)
	}
	sb := s.layout.sampleBytes()
	var frames [][]byte
	for off := 0; off < len(raw); off += s.frameBytes {
		packed := raw[off : off+s.frameBytes]
		f := make([]byte, s.frameBytes)
		for px := 0; px < s.plane/sb; px++ {
			for ch := range 3 {
				copy(f[ch*s.plane+px*sb:ch*s.plane+(px+1)*sb], packed[(3*px+ch)*sb:(3*px+ch+1)*sb])
			}
		}
		frames = append(frames, f)
	}
	return frames
}

// sampleDiff returns the mean and largest absolute difference between the
// samples of a and b (little-endian 16-bit when deep).
func sampleDiff(a, b []byte, deep bool) (mean float64, worst int) {
	sum, n := 0, 0
	for i := 0; i < len(a); i++ {
		x, y := int(a[i]), int(b[i])
		if deep {
			x, y = x|int(a[i+1])<<8, y|int(b[i+1])<<8
			i++
		}
		d := x - y
		if d < 0 {
			d = -d
		}
		sum += d
		worst = max(worst, d)
		n++
	}
	return float64(sum) / float64(n), worst
}
