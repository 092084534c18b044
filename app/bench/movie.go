package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"vastview/loader"
	"vastview/render"
	"vastview/session"
)

// movieFrames is the length of the movie benchmark's movie.
const movieFrames = 1000

// benchMovie measures `movie`: the frames per second of an MP4 of a
// 1024² view of a 1000-frame movie (a TIFF of 1024 × 1024 uint8 pages,
// 1 GB), beside ffmpeg encoding the same frames alone, fed from memory,
// in the same run.
func benchMovie(ctx context.Context, env *benchEnv) error {
	fx := tiffFixture(env.dir, 1024, 1024, movieFrames, loader.Uint8)
	work, err := env.workOn(fx, "movie")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	out := filepath.Join(work, "m.mp4")
	var movie, alone float64
	for range env.repeat {
		os.Remove(out)
		s, err := timedMovie(ctx, fx.path, out)
		if err != nil {
			return err
		}
		a, err := timedEncode(1024, 1024, movieFrames, filepath.Join(work, "alone.mp4"))
		if err != nil {
			return err
		}
		movie, alone = max(movie, movieFrames/s), max(alone, movieFrames/a)
	}
	name := "movie." + fx.name
	env.report(name+".mp4_1024.fps", movie, "frames/s")
	env.report(name+".ffmpeg_encode_alone.fps", alone, "frames/s")
	env.report(name+".ratio_to_encode_alone", movie/alone, "x")
	return nil
}

// timedMovie writes the MP4 of every frame of the movie at path, a 1024²
// view at one screen pixel a sample, and returns the seconds it took.
func timedMovie(ctx context.Context, path, out string) (float64, error) {
	t0 := time.Now()
	src, err := loader.Open(ctx, path)
	if err != nil {
		return 0, err
	}
	d, err := session.OpenData(path, src, session.DataOptions{Hold: true, DiskRoot: "-"})
	if err != nil {
		return 0, err
	}
	defer d.Release()
	v := render.View{Orientation: render.XY, Width: 1024, Height: 1024, Zoom: 1, Center: render.Point{Col: 512, Row: 512}, Lo: 0, Hi: 255}
	mv, err := session.NewMovie(d, v, false, false)
	if err != nil {
		return 0, err
	}
	defer mv.Close()
	if err := mv.Write(ctx, out, session.MovieOptions{To: -1, FPS: 25}); err != nil {
		return 0, err
	}
	return time.Since(t0).Seconds(), nil
}

// timedEncode runs the movie's ffmpeg command alone on n w × h gray
// frames like the fixture's pages, made in memory, and returns the
// seconds it took.
func timedEncode(w, h, n int, out string) (float64, error) {
	frames := make([][]byte, 16) // made once: the encoder, not the making, is timed
	page := make([]byte, w*h)
	for k := range frames {
		fillNoisy(k, page)
		f := make([]byte, 4*w*h)
		for i, g := range page {
			f[4*i], f[4*i+1], f[4*i+2], f[4*i+3] = g, g, g, 255
		}
		frames[k] = f
	}
	cmd, err := session.EncodeCommand(w, h, 25, out)
	if err != nil {
		return 0, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	for k := 0; k < n; k++ {
		if _, err := in.Write(frames[k%len(frames)]); err != nil {
			cmd.Wait()
			return 0, fmt.Errorf("ffmpeg: %w", err)
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("ffmpeg: %w", err)
	}
	return time.Since(t0).Seconds(), nil
}
