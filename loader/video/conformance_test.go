package video

import (
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over short videos:
// H.264 with B-frames and a long GOP in MP4, gray H.264, MJPEG in AVI.
func TestConformance(t *testing.T) {
	useCache(t)
	dir := t.TempDir()
	paths := map[string]string{
		"h264": ffmpegMake(t, dir, "h264.mp4", append(pattern("96x64", 30),
			"-frames:v", "40", "-c:v", "libx264", "-preset", "veryfast", "-g", "250", "-bf", "3", "-pix_fmt", "yuv420p")...),
		"gray": ffmpegMake(t, dir, "gray.mp4", append(pattern("64x48", 25),
			"-frames:v", "20", "-vf", "format=gray", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "gray")...),
		"mjpeg": ffmpegMake(t, dir, "mjpeg.avi", append(pattern("64x48", 25),
			"-frames:v", "20", "-c:v", "mjpeg", "-q:v", "5")...),
	}
	for name, p := range paths {
		t.Run(name, func(t *testing.T) { loadertest.ConformanceFile(t, "video", p) })
	}
}
