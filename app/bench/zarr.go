package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
)

// benchZarr measures the time from opening an OME-Zarr to its first image:
// the 4.2 GB stack of the open benchmark exported by `vastview pyramid`
// (zstd), opened from its folder and from a loopback HTTP server, its
// middle plane drawn in a 1016×543 view as the window shows it at start-up.
// "first" is the first frame with data everywhere (first_image in a
// trace), "complete" the frame at the view's own level.
func benchZarr(ctx context.Context, env *benchEnv) error {
	tif := tiffFixture(env.dir, 2048, 2048, 500, loader.Uint16)
	if err := tif.ensure(env); err != nil {
		return err
	}
	name := "zarr_2048x2048x500_uint16"
	zf := openFixture{name: name, path: filepath.Join(env.dir, name+".ome.zarr"), make: func(out string) error {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		cmd := exec.Command(exe, "pyramid", tif.path, out, "--codec", "zstd")
		cmd.Stderr = os.Stderr
		return cmd.Run()
	}}
	if err := zf.ensure(env); err != nil {
		return err
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(env.dir)))
	defer srv.Close()
	for _, where := range []struct{ name, path string }{
		{"folder", zf.path},
		{"http", srv.URL + "/" + name + ".ome.zarr"},
	} {
		var first, complete []float64
		for range env.repeat {
			f, c, err := firstImage(ctx, where.path)
			if err != nil {
				return err
			}
			first, complete = append(first, f), append(complete, c)
		}
		env.report("zarr."+where.name+".first_image", medianOf(first), "ms")
		env.report("zarr."+where.name+".complete", medianOf(complete), "ms")
	}
	return nil
}

// firstImage opens path and draws the middle plane at the size the window
// shows at start-up until it is complete; it returns the milliseconds to
// the first frame with data everywhere and to the complete frame.
func firstImage(ctx context.Context, path string) (first, complete float64, err error) {
	t0 := time.Now()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		return 0, 0, err
	}
	pyr, err := levels.Open(src, levels.Options{})
	if err != nil {
		src.Close()
		return 0, 0, err
	}
	defer pyr.Close()
	events, stop := pyr.Subscribe()
	defer stop()
	m := pyr.Meta()
	v := render.View{Orientation: render.XY, Z: m.Size('Z') / 2, Width: 1016, Height: 543, Lo: 0, Hi: 65535}
	v.Zoom, v.Center = render.Fit(m, v)
	var r render.Renderer
	ms := func() float64 { return float64(time.Since(t0).Microseconds()) / 1000 }
	deadline := time.After(time.Minute)
	for gen := uint64(1); ; gen++ {
		_, info := r.Render(v, pyr, gen)
		if info.Unfilled == 0 && first == 0 {
			first = ms()
		}
		if info.Complete {
			return first, ms(), nil
		}
		select {
		case e := <-events:
			if e.Err != nil {
				return 0, 0, e.Err
			}
		case <-deadline:
			return 0, 0, fmt.Errorf("%s: no complete frame after a minute", path)
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		}
	}
}

func medianOf(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
