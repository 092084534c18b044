package video

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"vastview/internal/testtool"
)

// BenchmarkRunBench runs the figures of `vastview bench video` once:
// go test -run '^$' -bench RunBench -benchtime 1x ./loader/video
// The fixture is kept in $VASTVIEW_BENCH_DIR (default: the user cache).
func BenchmarkRunBench(b *testing.B) {
	testtool.Require(b, "ffmpeg")
	dir := os.Getenv("VASTVIEW_BENCH_DIR")
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			b.Fatal(err)
		}
		dir = filepath.Join(c, "vastview", "bench")
	}
	b.ReportAllocs()
	for range b.N {
		err := RunBench(context.Background(), dir, func(name string, value float64, unit string) {
			b.Logf("%s %.4g %s", name, value, unit)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
