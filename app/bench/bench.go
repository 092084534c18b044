package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
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
	{"camera", benchCamera},
	{"pyramid", benchPyramid},
	{"levels", benchLevels},
	{"downsample", func(_ context.Context, env *benchEnv) error { return benchDownsample(env.report) }},
	{"codec", func(_ context.Context, env *benchEnv) error { return benchCodec(env.report) }},
	{"zarr", benchZarr},
	{"project", benchProject},
	{"measure", benchMeasure},
	{"movie", benchMovie},
	{"video", func(ctx context.Context, env *benchEnv) error { return benchVideo(ctx, env.dir, env.report) }},
	{"playback", benchPlayback},
	{"render", benchRender},
	{"draw", benchDraw},
}

// Names lists the benchmarks, in the order Run runs them.
func Names() []string {
	var all []string
	for _, b := range benchmarks {
		all = append(all, b.name)
	}
	return all
}

// Run runs the named benchmarks (every one when names is empty), with
// fixtures in dir (made there once) and each timed figure the median of
// repeat runs; figures go to out, one per line, progress to log.
func Run(ctx context.Context, names []string, dir string, repeat int, out, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range names {
		if !slices.Contains(Names(), n) {
			return fmt.Errorf("unknown benchmark %q (have %s)", n, strings.Join(Names(), ", "))
		}
	}
	env := &benchEnv{dir: dir, out: out, log: log, repeat: max(1, repeat)}
	for _, b := range benchmarks {
		if len(names) == 0 || slices.Contains(names, b.name) {
			if err := b.run(ctx, env); err != nil {
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

// workOn makes fixture f (once) and a fresh folder for one benchmark's
// outputs, named after prefix; remove it with os.RemoveAll when done.
func (e *benchEnv) workOn(f openFixture, prefix string) (work string, err error) {
	if err := f.ensure(e); err != nil {
		return "", err
	}
	return os.MkdirTemp(e.dir, prefix+"-")
}

// warmRead reads the file at path twice, the first to have it in the page
// cache, and returns the second read's seconds and the size.
func warmRead(path string) (seconds float64, size int64, err error) {
	if _, _, err := timedRead(path); err != nil {
		return 0, 0, err
	}
	return timedRead(path)
}
