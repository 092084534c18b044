package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"vastview/loader"
	"vastview/session"
)

// benchProject measures projections on the 4 GB uint16 stack of the
// pyramid benchmark, in one run: a plain sequential read of the file; the
// full-resolution maximum projection along Z by `plane --project max` in
// a child process (time, bandwidth, peak RSS); and, with the levels built
// into a disk cache, the viewer's projection: the time from asking for it
// to the first frame with data everywhere (the coarsest level's
// projection) and to the complete frame at the level the fitted view
// needs.
func benchProject(ctx context.Context, env *benchEnv) error {
	f := tiffFixture(env.dir, 2048, 2048, 500, loader.Uint16)
	work, err := env.workOn(f, "project")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	readS, size, err := warmRead(f.path)
	if err != nil {
		return err
	}
	env.report("project.plain_read.gbps", float64(size)/readS/1e9, "GB/s")

	env.progress("projecting at full resolution")
	fullS, rss, err := runSelf(nil, "plane", f.path, "--project", "max", "--out", filepath.Join(work, "max.raw"))
	if err != nil {
		return fmt.Errorf("plane --project: %w", err)
	}
	env.report("project.full_res.seconds", fullS, "s")
	env.report("project.full_res.gbps", float64(size)/fullS/1e9, "GB/s")
	env.report("project.full_res.ratio_to_plain_read", readS/fullS, "x")
	env.report("project.full_res.peak_rss_mib", float64(rss)/(1<<20), "MiB")

	env.progress("building levels")
	root := filepath.Join(work, "levels")
	if _, err := timedBuild(ctx, f.path, root); err != nil {
		return err
	}
	first, complete, err := viewProjection(ctx, f.path, root)
	if err != nil {
		return err
	}
	env.report("project.view.first_ms", first, "ms")
	env.report("project.view.complete_ms", complete, "ms")
	return nil
}

// viewProjection opens path in a session without a window (its levels in
// the disk cache at root), fits the plane in a 1016 × 543 view, and once
// the plane is drawn asks for the maximum projection along Z: it returns
// the milliseconds from asking to the first frame of the projection with
// data everywhere and to the complete one.
func viewProjection(ctx context.Context, path, root string) (first, complete float64, err error) {
	frames := make(chan struct{}, 1)
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
	s.Resize(1016, 543)
	var t0 time.Time
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case <-frames:
		case <-deadline:
			return 0, 0, fmt.Errorf("%s: no complete projection after two minutes", path)
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		}
		f := s.TakeFrame()
		if f == nil {
			continue
		}
		switch {
		case t0.IsZero() && f.Info.Complete:
			t0 = time.Now()
			s.SetProjection(loader.ProjectMax, 0)
		case !t0.IsZero() && f.Projection == loader.ProjectMax:
			ms := float64(time.Since(t0).Microseconds()) / 1000
			if first == 0 && f.Info.Unfilled == 0 {
				first = ms
			}
			if f.Info.Complete {
				return first, ms, nil
			}
		}
	}
}
