package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"vastview/loader"
	"vastview/session"
)

// playbackClips are the movies playback is measured on: what cameras
// and screen recorders write, H.264 with B-frames.
var playbackClips = []struct {
	name          string
	width, height int
	fps           int
}{
	{"h264_1280x720_20fps", 1280, 720, 20},
	{"h264_1920x1080_30fps", 1920, 1080, 30},
}

// playbackSeconds is how long each clip plays; the clips are a little
// longer, so that playback never wraps.
const playbackSeconds = 10

// benchPlayback plays each clip at its own rate in a session with a
// 1012 × 497 view (the viewer's picture in a 1280 × 1024 window),
// taking every frame the session offers as a window does, and reports
// the frames drawn per second and the frames skipped beside the rate at
// which ffmpeg decodes the clip to nothing (playback.NAME.ffmpeg_decode,
// the floor: playback can draw every frame only while ffmpeg decodes
// faster than the clip's rate).
func benchPlayback(ctx context.Context, env *benchEnv) error {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return fmt.Errorf("ffmpeg not found (install the ffmpeg package)")
	}
	for _, c := range playbackClips {
		frames := (playbackSeconds + 2) * c.fps
		path, err := videoFixture(ctx, ffmpeg, env.dir, c.name+".mp4",
			fmt.Sprintf("testsrc2=size=%dx%d:rate=%d", c.width, c.height, c.fps), frames, 2*c.fps)
		if err != nil {
			return err
		}
		env.progress("playing %s for %d s", c.name, playbackSeconds)
		start := time.Now()
		cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error",
			"-i", path, "-f", "null", "-")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("decoding %s: %v: %s", path, err, out)
		}
		env.report("playback."+c.name+".ffmpeg_decode", float64(frames)/time.Since(start).Seconds(), "fps")
		drawn, skipped, err := play(ctx, path, env.dir, playbackSeconds*time.Second)
		if err != nil {
			return err
		}
		env.report("playback."+c.name+".drawn", drawn, "fps")
		env.report("playback."+c.name+".skipped", float64(skipped), "frames")
	}
	return nil
}

// play opens path in a session, plays it for d at the file's rate and
// returns the frames drawn per second and how many frames between the
// first and the last drawn were never drawn.
func play(ctx context.Context, path, dir string, d time.Duration) (fps float64, skipped int, err error) {
	frames := make(chan struct{}, 1)
	root, err := os.MkdirTemp(dir, "playback-cache-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(root)
	s := session.New(session.Options{DiskRoot: root, OnFrame: func() {
		select {
		case frames <- struct{}{}:
		default:
		}
	}})
	defer s.Close()
	src, err := loader.Open(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	if err := s.OpenSource(src, path); err != nil {
		return 0, 0, err
	}
	s.Resize(1012, 497)
	var (
		start       time.Time
		first, last = -1, -1
		drawn       int
		stop        <-chan time.Time
	)
	deadline := time.After(d + time.Minute)
	for {
		select {
		case <-frames:
		case <-stop:
			if drawn < 2 {
				return 0, 0, fmt.Errorf("%s: playback drew %d frames", path, drawn)
			}
			return float64(drawn) / time.Since(start).Seconds(), (last - first + 1) - drawn, nil
		case <-deadline:
			return 0, 0, fmt.Errorf("%s: no complete first frame", path)
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		}
		f := s.TakeFrame()
		if f == nil {
			continue
		}

		switch {
		case stop == nil && f.Info.Complete:
			s.TogglePlay()
			start, stop = time.Now(), time.After(d)
		case stop != nil && f.View.T != last:
			if first < 0 {
				first = f.View.T
			}
			last = f.View.T
			drawn++
		}
	}
}

// videoFixture returns the H.264 file name in dir, making it if needed
// from the lavfi source with frames frames and a keyframe every gop.
func videoFixture(ctx context.Context, ffmpeg, dir, name, source string, frames, gop int) (string, error) {
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, ".tmp-"+name)
	cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", source, "-frames:v", strconv.Itoa(frames),
		"-c:v", "libx264", "-preset", "veryfast", "-g", strconv.Itoa(gop), "-bf", "3", "-pix_fmt", "yuv420p",
		"-f", "mp4", tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("making %s: %v: %s", name, err, out)
	}
	return path, os.Rename(tmp, path)
}
