package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"vastview/base/nd"
	"vastview/loader"
	"vastview/measure"
)

// measureBudget is the --budget of the measure run whose peak memory is
// reported: a quarter of the box.
const measureBudget = 256 << 20

// benchMeasure measures statistics of a 1 GiB box (a 2048 × 2048 × 128
// uint16 TIFF, the whole volume) in one run: a plain read of the file;
// reading every chunk of the box through the reader (as many at once as
// measure.Compute reads) against measure.Compute of the box, the ratio
// being the read's time over the statistics' (both warm); `measure --box`
// with a budget of a quarter of the box in a child process (time, peak
// RSS); and the time to update a line's profile (1400 samples long, 5
// wide) as it is dragged, from chunks in memory.
func benchMeasure(ctx context.Context, env *benchEnv) error {
	f := tiffFixture(env.dir, 2048, 2048, 128, loader.Uint16)
	if err := f.ensure(env); err != nil {
		return err
	}
	readS, size, err := warmRead(f.path)
	if err != nil {
		return err
	}
	env.report("measure.plain_file_read.gbps", float64(size)/readS/1e9, "GB/s")

	env.progress("measure --box in a child process, budget %d MiB", measureBudget>>20)
	cliS, rss, err := runSelf(nil, "measure", f.path, "--json", "--budget", strconv.Itoa(measureBudget), "--box", "0,0,0,128,2048,2048")
	if err != nil {
		return fmt.Errorf("measure --box: %w", err)
	}
	env.report("measure.box_1gib.cli_seconds", cliS, "s")
	env.report("measure.box_1gib.peak_rss_mib", float64(rss)/(1<<20), "MiB")
	env.report("measure.box_1gib.budget_mib", measureBudget>>20, "MiB")

	src, err := loader.Open(ctx, f.path)
	if err != nil {
		return err
	}
	defer src.Close()
	m := src.Meta()
	box := int64(nd.Product(m.Shape) * m.DType.Size())
	q := measure.Query{Region: measure.Rect{Row0: 0, Col0: 0, Row1: 2048, Col1: 2048}, From: 0, To: 128}
	env.progress("reading the box's chunks, then its statistics")
	readMs, err := env.median(func() error { return readAllChunks(ctx, src) })
	if err != nil {
		return err
	}
	statsMs, err := env.median(func() error {
		_, err := measure.Compute(ctx, src, q, measure.Options{Budget: measureBudget})
		return err
	})
	if err != nil {
		return err
	}
	env.report("measure.box_1gib.read_chunks.gbps", float64(box)/readMs/1e6, "GB/s")
	env.report("measure.box_1gib.stats.gbps", float64(box)/statsMs/1e6, "GB/s")
	env.report("measure.box_1gib.stats.ratio_to_read", readMs/statsMs, "x")

	env.progress("profiles of a dragged line")
	med, p90, err := profileDrag(ctx, src)
	if err != nil {
		return err
	}
	env.report("measure.profile_update.median_ms", med, "ms")
	env.report("measure.profile_update.p90_ms", p90, "ms")
	return nil
}

// readAllChunks reads every level-0 chunk of src, as many at once as
// measure.Compute reads by default (one per core), each into a buffer of
// its reader.
func readAllChunks(ctx context.Context, src loader.Source) error {
	l := &src.Meta().Levels[0]
	grid := l.Grid()
	jobs := make(chan []int)
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		idx := make([]int, len(grid))
		for {
			select {
			case jobs <- append([]int(nil), idx...):
			case <-ctx.Done():
				return ctx.Err()
			}
			if !nd.Next(idx, grid) {
				return nil
			}
		}
	})
	for range runtime.GOMAXPROCS(0) {
		g.Go(func() error {
			buf := make([]byte, l.ChunkBytes(src.Meta().DType))
			for idx := range jobs {
				if err := src.ReadChunk(ctx, 0, idx, buf); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// profileDrag profiles a line 1400 samples long and 5 wide across plane
// 64 of src, then 200 times with its end moved by a sample each time (a
// drag): it returns the median and the 90th percentile of those updates
// in milliseconds, the chunks read by the first.
func profileDrag(ctx context.Context, src loader.Source) (median, p90 float64, err error) {
	p := measure.NewProfiler(src, 0)
	pl := measure.Plane{Orientation: loader.XY, Index: 64}
	line := measure.Line{From: measure.Pt{Row: 300, Col: 200}, To: measure.Pt{Row: 1300, Col: 1180}, Width: 5}
	if _, err := p.ProfileLine(ctx, pl, 0, line); err != nil {
		return 0, 0, err
	}
	var ms []float64
	for i := range 200 {
		line.To = measure.Pt{Row: 1300 + float64(i%40), Col: 1180 + float64(i/40)}
		t0 := time.Now()
		if _, err := p.ProfileLine(ctx, pl, 0, line); err != nil {
			return 0, 0, err
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	slices.Sort(ms)
	return ms[len(ms)/2], ms[len(ms)*9/10], nil
}
