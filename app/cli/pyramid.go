package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"vastview/levels"
	"vastview/levels/omezarr"
	"vastview/loader"
	"vastview/session"
)

// cmdPyramid writes SRC with every level as an OME-Zarr image.
func cmdPyramid(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("pyramid", flag.ContinueOnError)
	zarrVer := fs.Int("zarr", 2, "Zarr format: 2 (OME-NGFF 0.4) or 3 (OME-NGFF 0.5)")
	method := fs.String("method", "", "mean or mode (default: mode for label images, else mean)")
	budget := fs.String("budget", "", "memory for cached chunks, e.g. 1GiB (default: min(25% of RAM, 4GiB))")
	codec := fs.String("codec", "zstd", "chunk compression: zstd, gzip or none")
	overwrite := fs.Bool("overwrite", false, "replace an existing output")
	partArg := fs.String("part", "", "I/N: write only the I-th of N disjoint parts of the chunks")
	shardArg := fs.String("shard", "", "Z,Y,X: samples per shard with --zarr 3 (0: automatic; default automatic; none: no shards)")
	finishArg := fs.Bool("finish", false, "after every --part I/N: check their chunks, write the rest and the metadata")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"pyramid: " + err.Error()}
	}
	if len(pos) != 2 {
		return usageError{"pyramid needs SRC and OUT.ome.zarr"}
	}
	if *zarrVer != 2 && *zarrVer != 3 {
		return usageError{"pyramid: --zarr must be 2 or 3"}
	}
	if *method != "" && *method != "mean" && *method != "mode" {
		return usageError{"pyramid: --method must be mean or mode"}
	}
	part, parts := 0, 0
	if *partArg != "" {
		if part, parts, err = parsePart(*partArg); err != nil {
			return usageError{"pyramid: --part: " + err.Error()}
		}
		if *finishArg {
			return usageError{"pyramid: --part and --finish go in separate runs"}
		}
	}
	shard, err := parseShard(*shardArg, *zarrVer)
	if err != nil {
		return usageError{"pyramid: --shard: " + err.Error()}
	}
	var cacheBytes int64
	if *budget != "" {
		if cacheBytes, err = levels.ParseBudget(*budget, false); err != nil {
			return usageError{"pyramid: --budget: " + err.Error()}
		}
	}
	srcPath, out := pos[0], pos[1]
	if !omezarr.IsObjectStore(out) && strings.Contains(out, "://") {
		return fmt.Errorf("%s: writing to a URL is not supported: write to a folder, s3:// or gs://", loader.Redact(out))
	}
	src, err := openSource(srcPath)
	if err != nil {
		return err
	}
	mode := *method == "mode" || *method == "" && src.Meta().Label
	if cacheBytes <= 0 {
		cacheBytes = levels.DefaultCacheBytes()
	}
	// The budget holds the chunk cache and the chunks in flight, half each;
	// a chunk larger than all of it cannot be held at all.
	if c := maxChunkBytes(src.Meta()); c > cacheBytes {
		src.Close()
		return fmt.Errorf("%s: its chunks of %s are larger than the memory budget of %s (--budget)", srcPath,
			session.HumanBytes(c), session.HumanBytes(cacheBytes))
	}
	opt := levels.Options{CacheBytes: levels.Part(cacheBytes, levels.PartExport), Mode: mode}
	// Where the levels stream from whole planes, the export computes them
	// as it writes, reading level 0 once, and needs no disk cache: writing
	// the computed chunks there too would write them twice. Otherwise it
	// computes them first into the disk cache, then reads them back with
	// level 0; an earlier build's levels found there are reused.
	streams := levels.Streams(src.Meta())
	inParts := parts > 0 || *finishArg
	if !streams && !*finishArg {
		if err := useDiskCache(srcPath, src, &opt); err != nil {
			fmt.Fprintf(stderr, "vastview: disk cache not used: %v\n", err)
		}
	}
	pyr, err := levels.Open(src, opt)
	if err != nil {
		src.Close()
		return fmt.Errorf("%s: %w", srcPath, err)
	}
	defer pyr.Close()
	bar := newProgressBar(stderr)
	defer bar.finish()
	// The disk cache may fail at any time (a full disk): the export goes
	// on without it, and says so once.
	warned := false
	warnDisk := func() {
		if err := pyr.DiskError(); err != nil && !warned {
			warned = true
			bar.note(fmt.Sprintf("vastview: %v", err))
		}
	}
	warnDisk()
	defer warnDisk()
	// What an earlier export to out that was killed left behind goes now,
	// its space freed before the levels are built.
	if !inParts && !omezarr.IsObjectStore(out) {
		if note := staleNote(omezarr.RemoveStale(out)); note != "" {
			bar.note("vastview: " + note)
		}
	}
	// Ctrl+C, a kill (SIGTERM) or a closed terminal (SIGHUP) stop the
	// work, and the output's temporary folder is removed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// Keep the heap near the budget: cached chunks plus the buffers in
	// flight, or what streaming the planes takes at least when that is more.
	limit := cacheBytes
	if need := pyr.StreamBytes(); need > cacheBytes {
		fmt.Fprintf(stderr, "vastview: building the levels of planes of %s takes %s at least, more than the budget of %s (--budget)\n",
			session.HumanBytes(maxChunkBytes(src.Meta())), session.HumanBytes(need), session.HumanBytes(cacheBytes))
		limit = need
	}
	debug.SetMemoryLimit(limit + limit/8 + 64<<20)
	// A part or the finish, off a terminal (a cluster's log), says when
	// each level is done and how fast.
	var levelLine func(level, chunks int, bytes int64)
	if inParts && !bar.tty {
		what := "finish"
		if parts > 0 {
			what = "part " + *partArg
		}
		start := time.Now()
		levelLine = func(level, chunks int, bytes int64) {
			s := time.Since(start).Seconds()
			bar.note(fmt.Sprintf("vastview: %s: level %d done: %d chunks, %.1f MB in %.1f s, %.1f MB/s",
				what, level, chunks, float64(bytes)/1e6, s, float64(bytes)/1e6/max(s, 1e-3)))
		}
	}
	workers := inFlight(pyr.Meta(), cacheBytes-opt.CacheBytes)
	if !streams && !inParts {
		if err := buildLevels(ctx, pyr, workers, bar); err != nil {
			warnDisk()
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %v, nothing written", out, context.Cause(ctx))
			}
			return fmt.Errorf("%s: %w", srcPath, err)
		}
		warnDisk()
	}
	err = omezarr.Write(ctx, out, pyr, omezarr.Options{
		Version: *zarrVer, Codec: *codec, Overwrite: *overwrite, Workers: workers,
		Type: map[bool]string{true: "mode", false: "mean"}[mode], Progress: bar.update,
		Shard: shard, Part: part, Parts: parts, Finish: *finishArg, LevelDone: levelLine,
	})
	if ctx.Err() != nil && omezarr.IsObjectStore(out) {
		return fmt.Errorf("%s: %v, the image not finished (no metadata written; a rerun keeps what is there)", out, context.Cause(ctx))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %v, nothing written", out, context.Cause(ctx))
	}
	if se := (*omezarr.SourceError)(nil); errors.As(err, &se) {
		return fmt.Errorf("%s: %w", srcPath, se.Err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	if levelLine != nil && parts > 0 {
		view, bg := pyr.BytesRead()
		bar.note(fmt.Sprintf("vastview: part %s: read %.1f MB of the source", *partArg, float64(view+bg)/1e6))
	}
	return nil
}

// parseShard reads --shard: Z,Y,X samples per shard (0: automatic), ""
// for automatic shards with Zarr v3, or none.
func parseShard(s string, ver int) ([]int, error) {
	switch {
	case s == "none" || s == "" && ver != 3:
		return nil, nil
	case s == "":
		return []int{0, 0, 0}, nil
	case ver != 3:
		return nil, fmt.Errorf("shards need --zarr 3")
	}
	f := strings.Split(s, ",")
	var v []int
	for _, x := range f {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 0 {
			break
		}
		v = append(v, n)
	}
	if len(f) != 3 || len(v) != 3 {
		return nil, fmt.Errorf("%q is not Z,Y,X (samples per shard, 0 for automatic) or none", s)
	}
	return v, nil
}

// parsePart reads "I/N" with 1 ≤ I ≤ N.
func parsePart(s string) (part, parts int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		part, err = strconv.Atoi(strings.TrimSpace(a))
		if err == nil {
			parts, err = strconv.Atoi(strings.TrimSpace(b))
		}
	}
	if !ok || err != nil || parts < 1 || part < 1 || part > parts {
		return 0, 0, fmt.Errorf("%q is not I/N with 1 ≤ I ≤ N", s)
	}
	return part, parts, nil
}

// buildLevels builds the computed levels of pyr, showing their progress
// on bar.
func buildLevels(ctx context.Context, pyr *levels.Pyramid, workers int, bar *progressBar) error {
	building := make(chan struct{})
	defer close(building)
	go func() {
		for {
			select {
			case <-building:
				return
			case <-time.After(200 * time.Millisecond):
				var done, total int64
				for _, lp := range pyr.Progress() {
					done, total = done+lp.Done, total+lp.Total
				}
				bar.phase("levels", int(done), int(total))
			}
		}
	}()
	return pyr.Build(ctx, workers)
}

// staleNote says in one line what omezarr.RemoveStale (or, for a movie,
// fsutil.RemoveStalePartials) tidied up, or is ""
// if it found nothing.
func staleNote(removed []string, restored string) string {
	var parts []string
	if len(removed) > 0 {
		parts = append(parts, "removed "+strings.Join(removed, ", "))
	}
	if restored != "" {
		parts = append(parts, "put back the earlier output from "+restored)
	}
	if len(parts) == 0 {
		return ""
	}
	by := "an earlier export that was killed"
	if len(removed) > 1 {
		by = "earlier exports that were killed"
	}
	return strings.Join(parts, "; ") + ", left by " + by
}

// maxChunkBytes is the size of the largest chunk of any level m lists.
func maxChunkBytes(m *loader.Meta) int64 {
	var n int64
	for i := range m.Levels {
		n = max(n, int64(m.Levels[i].ChunkBytes(m.DType)))
	}
	return n
}

// inFlight is how many chunks to work on at once so that their buffers
// (each chunk read and, say, its encoded copy) fit in bytes: between one
// and one per core.
func inFlight(m *loader.Meta, bytes int64) int {
	return int(max(1, min(int64(runtime.GOMAXPROCS(0)), bytes/(2*maxChunkBytes(m)))))
}

// useDiskCache has the pyramid reuse and keep computed levels in the user
// cache folder, under the identity of src (opened from path): a file's, or
// a URL's from what its server says.
func useDiskCache(path string, src loader.Source, opt *levels.Options) error {
	root, err := levels.DefaultDiskRoot()
	if err != nil {
		return err
	}
	id, err := loader.SourceIdentity(path, src)
	if err != nil {
		return err
	}
	d, err := levels.OpenDisk(root, defaultDiskLimit)
	if err != nil {
		return err
	}
	opt.Disk, opt.Identity = d, id
	return nil
}

// defaultDiskLimit bounds the disk cache of computed levels.
const defaultDiskLimit = 20 << 30

// progressBar draws chunk progress on a terminal, at most ten times a
// second; elsewhere it stays silent. Safe for concurrent use.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	last  time.Time
	start time.Time
	drawn bool
	unit  string // what is counted
}

func newProgressBar(w io.Writer) *progressBar {
	tty := false
	under := w
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		under = u.Unwrap()
	}
	if f, ok := under.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progressBar{w: w, tty: tty, start: time.Now(), unit: "chunks"}
}

func (b *progressBar) update(done, total int) { b.phase("writing", done, total) }

// phase draws the bar for one phase of the work.
func (b *progressBar) phase(name string, done, total int) {
	if !b.tty || total <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if done < total && time.Since(b.last) < 100*time.Millisecond {
		return
	}
	b.last = time.Now()
	const width = 30
	n := done * width / total
	fmt.Fprintf(b.w, "\r%-8s [%s%s] %3d%%  %d/%d %s  %.0fs ", name, strings.Repeat("#", n), strings.Repeat(" ", width-n),
		done*100/total, done, total, b.unit, time.Since(b.start).Seconds())
	b.drawn = true
}

// note prints a line of its own, below the bar if one is drawn.
func (b *progressBar) note(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
	fmt.Fprintln(b.w, line)
}

func (b *progressBar) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
