package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"vastview/downsample"
	"vastview/loader/video"
	"vastview/loader/zarr/codec"
)

// A benchmark prints figures through report; names are dotted, e.g.
// "open.tiff_2048x2048x500_uint16.first_plane".
type benchmark struct {
	name string
	run  func(ctx context.Context, env *benchEnv) error
}

// benchEnv is what every benchmark shares: where fixtures live, how to
// report, and where progress goes.
type benchEnv struct {
	dir    string
	out    io.Writer
	log    io.Writer
	repeat int
}

func (e *benchEnv) report(name string, value float64, unit string) {
	fmt.Fprintf(e.out, "%s %.4g %s\n", name, value, unit)
}

func (e *benchEnv) progress(format string, a ...any) {
	fmt.Fprintf(e.log, "bench: "+format+"\n", a...)
}

var benchmarks = []benchmark{
	{"open", benchOpen},
	{"pyramid", benchPyramid},
	{"downsample", func(_ context.Context, env *benchEnv) error { return downsample.RunBench(env.report) }},
	{"codec", func(_ context.Context, env *benchEnv) error { return codec.RunBench(env.report) }},
	{"zarr", benchZarr},
	{"video", func(ctx context.Context, env *benchEnv) error { return video.RunBench(ctx, env.dir, env.report) }},
}

func cmdBench(args []string, out, log io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	dir := fs.String("dir", os.Getenv("VASTVIEW_BENCH_DIR"), "folder for generated fixtures (default: user cache)")
	repeat := fs.Int("repeat", 7, "runs per figure (the median is reported)")
	names, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"bench: " + err.Error()}
	}
	if *dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		*dir = filepath.Join(c, "vastview", "bench")
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	env := &benchEnv{dir: *dir, out: out, log: log, repeat: max(1, *repeat)}
	var all []string
	for _, b := range benchmarks {
		all = append(all, b.name)
	}
	for _, n := range names {
		if !slices.Contains(all, n) {
			return usageError{fmt.Sprintf("bench: unknown benchmark %q (have %s)", n, strings.Join(all, ", "))}
		}
	}
	for _, b := range benchmarks {
		if len(names) == 0 || slices.Contains(names, b.name) {
			if err := b.run(context.Background(), env); err != nil {
				return fmt.Errorf("bench %s: %w", b.name, err)
			}
		}
	}
	return nil
}

// median runs f env.repeat times and returns the median duration in ms.
func (e *benchEnv) median(f func() error) (float64, error) {
	ds := make([]float64, 0, e.repeat)
	for range e.repeat {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ds = append(ds, float64(time.Since(t0).Microseconds())/1000)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}
