package video

import (
	"strconv"
	"testing"
)

// fixture makes one small video in dir.
type fixture struct {
	name string
	make func(t testing.TB, dir string) string
}

// lavfi source of a moving test pattern.
func pattern(size string, rate int) []string {
	return []string{"-f", "lavfi", "-i", "testsrc2=size=" + size + ":rate=" + strconv.Itoa(rate)}
}

// fixtures are the videos every frame-exactness test runs on.
var fixtures = []fixture{
	{"h264_bframes_gop250.mp4", func(t testing.TB, dir string) string {
		// Long GOP, B-frames (pyramid), colour 4:2:0.
		return ffmpegMake(t, dir, "h264.mp4", append(pattern("320x240", 30),
			"-frames:v", "300", "-c:v", "libx264", "-preset", "veryfast", "-g", "250", "-bf", "3", "-pix_fmt", "yuv420p")...)
	}},
	{"h264_gray.mp4", func(t testing.TB, dir string) string {
		// 4:0:0 (High profile), which FFmpeg decodes as yuv420p.
		return ffmpegMake(t, dir, "gray.mp4", append(pattern("160x120", 25),
			"-frames:v", "300", "-vf", "format=gray", "-c:v", "libx264", "-preset", "veryfast", "-g", "250", "-bf", "3", "-pix_fmt", "gray")...)
	}},
	{"mjpeg.avi", func(t testing.TB, dir string) string {
		return ffmpegMake(t, dir, "mjpeg.avi", append(pattern("160x120", 25),
			"-frames:v", "300", "-c:v", "mjpeg", "-q:v", "5")...)
	}},
	{"vfr_concat.mkv", func(t testing.TB, dir string) string {
		// Three segments at 24, 7 and 50 frames per second.
		return ffmpegMake(t, dir, "vfr.mkv", "-filter_complex",
			"testsrc2=s=160x120:r=24:d=4[a];testsrc2=s=160x120:r=7:d=6[b];testsrc2=s=160x120:r=50:d=3[c];[a][b][c]concat=n=3:v=1",
			"-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-bf", "2")
	}},
	{"vfr_setpts.mp4", func(t testing.TB, dir string) string {
		// Irregular timestamps: (N + 0.4 sin N) * 40 ms.
		return ffmpegMake(t, dir, "vfr.mp4", append(pattern("160x120", 25),
			"-frames:v", "300", "-vf", "settb=1/1000,setpts='(N+0.4*sin(N))*40'", "-fps_mode", "passthrough", "-enc_time_base", "1:1000",
			"-c:v", "libx264", "-preset", "veryfast", "-g", "100", "-bf", "3")...)
	}},
	{"h264_aac.mov", func(t testing.TB, dir string) string {
		// QuickTime with an audio track (its priming makes an edit list).
		return ffmpegMake(t, dir, "av.mov", append(pattern("160x120", 25),
			"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
			"-frames:v", "300", "-map", "0:v", "-map", "1:a", "-shortest",
			"-c:v", "libx264", "-preset", "veryfast", "-g", "120", "-bf", "2", "-c:a", "aac")...)
	}},
	{"cut_editlist.mp4", func(t testing.TB, dir string) string {
		// A stream copy cut mid-GOP: an edit list that starts after the
		// keyframe, so that the first packets decode but are not shown.
		src := ffmpegMake(t, dir, "whole.mp4", append(pattern("160x120", 30),
			"-frames:v", "400", "-c:v", "libx264", "-preset", "veryfast", "-g", "150", "-bf", "3")...)
		return ffmpegMake(t, dir, "cut.mp4", "-ss", "3.3", "-i", src, "-c", "copy")
	}},
	{"h264_10bit.mkv", func(t testing.TB, dir string) string {
		return ffmpegMake(t, dir, "deep.mkv", append(pattern("160x120", 25),
			"-frames:v", "300", "-c:v", "libx264", "-preset", "veryfast", "-g", "100", "-pix_fmt", "yuv420p10le")...)
	}},
}
