package video

import (
	"testing"
)

// TestFullRange checks that stored values come back as the source had
// them: gray streams unchanged (0, 16, 128, 235 and 255 stay so, whatever
// range the stream is flagged with), 8-bit colour streams as full-range
// RGB (black 0, white 255) from limited- and full-range YUV. Deeper colour
// is ffmpeg's rgb48le conversion (see TestColourMatchesFFmpeg).
func TestFullRange(t *testing.T) {
	useCache(t)
	const grayBands = "if(lt(X,32),0,if(lt(X,64),16,if(lt(X,96),128,if(lt(X,128),235,255))))"
	gray := "nullsrc=s=160x120:r=25,format=gray,geq=lum='" + grayBands + "'"
	gray16 := "nullsrc=s=160x120:r=25,format=gray16le,geq=lum='if(lt(X,80),0,65535)'"
	rgb := "nullsrc=s=160x120:r=25,format=rgb24,geq=r='if(lt(X,80),0,255)':g='if(lt(X,80),0,255)':b='if(lt(X,80),0,255)'"
	cases := []struct {
		name, src string
		enc       []string
		axes      string
		bands     []int // expected value per 32-pixel band (gray) or half (colour)
	}{
		{"h264_gray.mp4", gray, []string{"-c:v", "libx264", "-qp", "0", "-pix_fmt", "gray"}, "TYX", []int{0, 16, 128, 235, 255}},
		{"ffv1_gray16.mkv", gray16, []string{"-c:v", "ffv1", "-pix_fmt", "gray16le"}, "TYX", []int{0, 65535}},
		{"h264_yuv420p.mp4", rgb, []string{"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"}, "TCYX", []int{0, 255}},
		{"h264_yuvj420p.mp4", rgb, []string{"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuvj420p"}, "TCYX", []int{0, 255}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-f", "lavfi", "-i", c.src, "-frames:v", "8"}, c.enc...)
			s := openVideo(t, ffmpegMake(t, t.TempDir(), c.name, args...))
			if s.meta.Axes != c.axes {
				t.Fatalf("axes %s, want %s", s.meta.Axes, c.axes)
			}
			frame := readFrame(t, s, 5)
			w, h := s.ix.size()
			band := w / len(c.bands)
			for ch := range s.layout.channels() {
				for y := 8; y < h-8; y++ {
					for x := 0; x < w; x++ {
						b := x / band
						if x%band < 4 || x%band >= band-4 {
							continue // chroma and filter edges
						}
						got := sample(frame, s, ch, y, x)
						if got != c.bands[b] {
							t.Fatalf("channel %d pixel (%d,%d) = %d, want %d", ch, x, y, got, c.bands[b])
						}
					}
				}
			}
		})
	}
}

// sample returns one sample of a frame read from s.
func sample(frame []byte, s *Source, ch, y, x int) int {
	w, _ := s.ix.size()
	i := ch*s.plane/s.layout.sampleBytes() + y*w + x
	if s.layout.deep {
		return int(frame[2*i]) | int(frame[2*i+1])<<8
	}
	return int(frame[i])
}
