package cli

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"

	"vastview/app/bench"
)

// cmdBench runs `vastview bench [NAME...] [--dir D] [--repeat N]`.
func cmdBench(args []string, out, log io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	dir := fs.String("dir", os.Getenv("VASTVIEW_BENCH_DIR"), "folder for generated fixtures (default: user cache)")
	repeat := fs.Int("repeat", 7, "runs per figure (the median is reported)")
	names, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"bench: " + err.Error()}
	}
	for _, n := range names {
		if !contains(bench.Names(), n) {
			return usageError{"bench: unknown benchmark " + n}
		}
	}
	if *dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		*dir = filepath.Join(c, "vastview", "bench")
	}
	return bench.Run(context.Background(), names, *dir, *repeat, out, log)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
