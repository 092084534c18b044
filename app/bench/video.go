package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"
	"vastview/loader/video"
)

// Bench fixture: 1080p H.264 with a keyframe every 250 frames and
// B-frames, the layout of camera and screen recordings.
const (
	benchName   = "video_1080p_gop250.mp4"
	benchFrames = 1200
	benchRandom = 50  // random frames timed
	benchWalk   = 240 // frames timed per walk
)

// benchVideo measures frame access on a 1080p GOP-250 H.264 file in dir
// (made with ffmpeg on first use and kept) and reports, through report:
// the index build time (video.index ms), the latency of reading random
// frames (video.random.median, .p99 ms) beside one `ffmpeg -ss T -i file
// -frames:v 1` run per frame on the same frames, the two taking turns
// (video.ffmpeg_ss.median, .p99 ms), and frames per second walking
// forward (video.forward fps) and backward frame by frame (video.backward
// fps). It is not safe to run
// concurrently with itself on the same dir.
func benchVideo(ctx context.Context, dir string, report func(name string, value float64, unit string)) error {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return fmt.Errorf("ffmpeg not found (install the ffmpeg package)")
	}
	path, err := benchFixture(ctx, ffmpeg, dir)
	if err != nil {
		return err
	}
	// The frame index is made anew (and kept for the later opens) in a
	// folder of the bench's own.
	cache := filepath.Join(dir, "video-index")
	os.RemoveAll(cache)
	saved := video.CacheDir
	video.CacheDir = func() (string, error) { return cache, nil }
	defer func() { video.CacheDir = saved }()
	start := time.Now()
	s, err := video.OpenVideo(ctx, path)
	if err != nil {
		return err
	}
	report("video.index", ms(time.Since(start)), "ms")
	frames := s.Meta().Shape[0]
	picks := rand.New(rand.NewPCG(1, 2)).Perm(frames)[:benchRandom]
	defer func() { s.Close() }()
	// Each frame read both ways in turn, so that both see the same load.
	var lat, ss []time.Duration
	for _, f := range picks {
		d, err := timeReads(ctx, s, []int{f})
		if err != nil {
			return err
		}
		e, err := timeSeeks(ctx, ffmpeg, s, []int{f})
		if err != nil {
			return err
		}
		lat, ss = append(lat, d...), append(ss, e...)
	}
	report("video.random.median", ms(quantile(lat, 0.5)), "ms")
	report("video.random.p99", ms(quantile(lat, 0.99)), "ms")
	report("video.ffmpeg_ss.median", ms(quantile(ss, 0.5)), "ms")
	report("video.ffmpeg_ss.p99", ms(quantile(ss, 0.99)), "ms")

	for _, walk := range []struct {
		name        string
		first, step int
	}{{"video.forward", 0, 1}, {"video.backward", frames - 1, -1}} {
		fs := make([]int, benchWalk)
		for i := range fs {
			fs[i] = walk.first + i*walk.step
		}
		s.Close()
		if s, err = video.OpenVideo(ctx, path); err != nil { // fresh decoders, the index from the cache
			return err
		}
		start := time.Now()
		if _, err := timeReads(ctx, s, fs); err != nil {
			return err
		}
		report(walk.name, float64(len(fs))/time.Since(start).Seconds(), "fps")
	}
	return nil
}

// benchFixture returns the bench video in dir, making it if needed.
func benchFixture(ctx context.Context, ffmpeg, dir string) (string, error) {
	return videoFixture(ctx, ffmpeg, dir, benchName, "testsrc2=size=1920x1080:rate=30", benchFrames, 250)
}

// timeReads reads the frames in turn and returns each read's duration.
func timeReads(ctx context.Context, s *video.Source, frames []int) ([]time.Duration, error) {
	m := s.Meta()
	dst := make([]byte, m.Levels[0].ChunkBytes(m.DType))
	idx := make([]int, len(m.Axes))
	var lat []time.Duration
	for _, f := range frames {
		idx[0] = f
		start := time.Now()
		if err := s.ReadChunk(ctx, 0, idx, dst); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}

// timeSeeks runs one `ffmpeg -ss T -i file -frames:v 1` per frame, with
// the output format vastview uses, and returns each run's duration.
func timeSeeks(ctx context.Context, ffmpeg string, s *video.Source, frames []int) ([]time.Duration, error) {
	var lat []time.Duration
	for _, f := range frames {
		at := strconv.FormatFloat(s.Time(f)-s.Time(0), 'f', 6, 64)
		cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error",
			"-ss", at, "-i", s.Path(), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", s.PixFmt(), "pipe:1")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("ffmpeg -ss %s: %v: %s", at, err, bytes.TrimSpace(stderr.Bytes()))
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}

// quantile returns the q-quantile (nearest rank) of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }
