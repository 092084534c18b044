package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
	"vastview/render/volume"
	"vastview/session"
)

// castOpts are the options of `vastview render` beyond those of a plane.
type castOpts struct {
	mode string
	step float64
	iso  float64
}

// flags registers the options of a rendering but its mode.
func (c *castOpts) flags(fs *flag.FlagSet) {
	fs.Float64Var(&c.step, "step", 0, "the distance between a ray's samples, in the spacing's unit (default: the smallest spacing)")
	fs.Float64Var(&c.iso, "iso", math.NaN(), "iso's threshold, in stored values (default: the middle of the window)")
}

// cmdRender writes a 3-D rendering: one ray per sample of the oblique
// plane the options give, cast along its normal.
func cmdRender(args []string, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	o := planeOpts{stderr: stderr}
	fs.StringVar(&o.out, "out", "", "output file (.raw or .png)")
	o.flags(fs)
	var ob obliqueOpts
	ob.flags(fs)
	var co castOpts
	co.flags(fs)
	fs.StringVar(&co.mode, "mode", "mip", "mip, minip, mean, alpha or iso")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"render: " + err.Error()}
	}
	o.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })
	if len(pos) != 1 || o.out == "" {
		return usageError{"render needs SRC and --out F"}
	}
	ext := strings.ToLower(filepath.Ext(o.out))
	if ext != ".raw" && ext != ".png" {
		return usageError{"render: --out must end in .raw or .png"}
	}
	opts, err := co.options(&o, "render", ext == ".png")
	if err != nil {
		return err
	}
	src, err := openSource(pos[0])
	if err != nil {
		return err
	}
	owned := true // until the picture's data owns it
	defer func() {
		if owned {
			src.Close()
		}
	}()
	defer func() {
		if err == nil {
			noteMissing(stderr, pos[0], src)
		}
	}()
	m := src.Meta()
	for _, a := range []byte("TC") {
		at := map[byte]int{'T': o.t, 'C': o.c}[a]
		if at < 0 || at >= m.Size(a) {
			return usageError{fmt.Sprintf("render: --%c %d is outside 0..%d", a+'a'-'A', at, m.Size(a)-1)}
		}
	}
	p, in, err := ob.plane(m, o.t, o.c)
	if err != nil {
		return usageError{"render: " + err.Error()}
	}
	opts.Interp = in
	if ext == ".png" {
		owned = false
		return o.drawCast(pos[0], src, p, opts)
	}
	var from loader.Source = src
	if o.level >= len(m.Levels) {
		pyr, err := levels.Open(src, levels.Options{CacheBytes: 512 << 20})
		if err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		defer pyr.Close()
		from = pyr
	}
	if fm := from.Meta(); o.level < 0 || o.level >= len(fm.Levels) {
		return usageError{fmt.Sprintf("render: no level %d (%d with the computed ones)", o.level, len(fm.Levels))}
	}
	dst := make([]float32, p.W*p.H)
	if err := castRaw(context.Background(), from, p, o.level, opts, dst); err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	return writeOut(o.out, float32Bytes(dst))
}

// options checks the command line of command cmd and returns the
// rendering's options (but the interpolation); picture says the output
// is pictures, else values.
func (co *castOpts) options(o *planeOpts, cmd string, picture bool) (volume.Options, error) {
	var opts volume.Options
	mode, ok := volume.ParseMode(co.mode)
	if !ok {
		return opts, usageError{fmt.Sprintf("%s: --mode must be mip, minip, mean, alpha or iso, not %q", cmd, co.mode)}
	}
	if !mode.Projects() && !picture {
		return opts, usageError{"render: --mode " + co.mode + " draws colours: --out must end in .png"}
	}
	for _, f := range []string{"plane", "index", "z", "project", "slab", "overlay", "scalebar"} {
		if f == "overlay" && cmd == "render" {
			continue // labels drawn as surfaces
		}
		if o.given[f] {
			return opts, usageError{cmd + ": --" + f + " does not go with a 3-D rendering"}
		}
	}
	if o.given["step"] && !(co.step > 0 && !math.IsInf(co.step, 0)) {
		return opts, usageError{fmt.Sprintf(cmd+": --step wants a positive number, not %v", co.step)}
	}
	if o.given["iso"] && (mode != volume.Iso || math.IsNaN(co.iso) || math.IsInf(co.iso, 0)) {
		return opts, usageError{cmd + ": --iso wants a number, with --mode iso"}
	}
	if o.given["overlay"] && !picture {
		return opts, usageError{cmd + ": --overlay draws labels in a picture: --out must end in .png"}
	}
	if o.given["opacity"] && (mode != volume.Alpha || !(o.opacity > 0 && o.opacity <= 1)) {
		return opts, usageError{cmd + ": --opacity wants a number above 0 up to 1, with --mode alpha"}
	}
	if !picture {
		for _, f := range []string{"window", "level-range", "colormap", "channels", "colors", "windows"} {
			if o.given[f] {
				return opts, usageError{cmd + ": --" + f + " is for a picture: --out must end in .png"}
			}
		}
	}
	if o.given["colormap"] {
		if o.colormap == render.RGB {
			return opts, usageError{cmd + ": a 3-D rendering draws channels, not --colormap rgb"}
		}
		if _, err := render.ColormapNamed(o.colormap); err != nil {
			return opts, usageError{cmd + ": " + err.Error()}
		}
	}
	if o.given["channels"] && (o.given["c"] || o.given["colormap"] || o.given["window"] || o.given["level-range"]) {
		return opts, usageError{cmd + ": give --channels (a composite) or --c, --colormap, --window, --level-range (one channel), not both"}
	}
	opts = volume.Options{Mode: mode, Step: co.step, Iso: co.iso, Opacity: 1}
	if o.given["opacity"] {
		opts.Opacity = o.opacity
	}
	return opts, nil
}

// castBudget bounds the bytes of chunks held at once while a rendering's
// values are computed: rays needing more are cast in bands of rows.
const castBudget = 1 << 30

// castRaw renders the values of p through level of src into dst, reading
// the chunks the rays cross and no others: in bands of rows when they
// would hold more than castBudget bytes at once.
func castRaw(ctx context.Context, src loader.Source, p oblique.Plane, level int, o volume.Options, dst []float32) error {
	m := src.Meta()
	store := &chunkStore{meta: m, chunks: map[string][]byte{}}
	cb := int64(m.Levels[level].ChunkBytes(m.DType))
	var r volume.Renderer
	defer r.Close()
	for from := 0; from < p.H; {
		to := p.H
		var need [][]int
		for {
			r.Forget()
			clear(store.chunks)
			r.Render(dst[from*p.W:to*p.W], band(p, from, to), store, level, o)
			_, need = r.Missing()
			if int64(len(need))*cb <= castBudget || to-from == 1 {
				break
			}
			to = from + (to-from)/2
		}
		for _, idx := range need {
			b := make([]byte, cb)
			if err := src.ReadChunk(ctx, level, idx, b); err != nil {
				return err
			}
			store.chunks[chunkName(level, idx)] = b
		}
		r.Forget()
		if info := r.Render(dst[from*p.W:to*p.W], band(p, from, to), store, level, o); !info.Complete {
			return fmt.Errorf("3-D rendering: %d chunks of level %d not read", info.Missing, level)
		}
		from = to
	}
	return nil
}

// band is rows from up to to of plane p, as a plane of its own.
func band(p oblique.Plane, from, to int) oblique.Plane {
	if from == 0 && to == p.H {
		return p
	}
	q := p
	q.H = to - from
	q.Center = p.At(float64(from)+float64(q.H-1)/2, float64(p.W-1)/2)
	return q
}

// drawCast writes the PNG of the rendering of p of src (named name,
// which it owns) as the viewer's 3-D view draws it (session.Picture).
func (o *planeOpts) drawCast(name string, src loader.Source, p oblique.Plane, opts volume.Options) error {
	d, v, err := o.castView("render", name, src)
	if err != nil {
		return err
	}
	defer d.Release()
	pc, err := session.NewPicture(d, v, false)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer pc.Close()
	if err := pc.Cast(p, o.level, opts); err != nil {
		return usageError{"render: " + err.Error()}
	}
	if o.overlay != "" {
		sel := loader.Plane{Orientation: render.XY, At: map[byte]int{'T': o.t}}
		if err := o.addLabels(pc, name, d.Pyr.Meta(), sel, true); err != nil {
			return err
		}
	}
	img, err := pc.Draw(context.Background())
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return writePNG(o.out, img)
}

// castView opens src (named name, which it owns) for the pictures of a
// 3-D rendering of command cmd, with the view that gives their channels,
// windows and colormap (as pictureView picks them); the data is released
// by the caller.
func (o *planeOpts) castView(cmd, name string, src loader.Source) (*session.Data, render.View, error) {
	d, err := session.OpenData(session.Canonical(name), src, session.DataOptions{Hold: true, DiskRoot: "-"})
	if err != nil {
		return nil, render.View{}, fmt.Errorf("%s: %w", name, err)
	}
	m := d.Pyr.Meta()
	fail := func(err error) (*session.Data, render.View, error) {
		d.Release()
		return nil, render.View{}, err
	}
	if m.RGB && !o.given["c"] {
		return fail(usageError{cmd + ": a 3-D rendering draws one channel of colour pixels: pick one with --c"})
	}
	chans, err := o.composite(m, ".png")
	if err != nil {
		return fail(usageError{cmd + ": " + err.Error()})
	}
	// Windows left to auto-contrast are chosen as for the volume's
	// middle XY plane.
	sel := loader.Plane{Orientation: render.XY, At: map[byte]int{'T': o.t, 'C': o.c, 'Z': m.Size('Z') / 2}}
	v, err := o.pictureView(cmd, m, sel.Orientation, sel, chans)
	if err != nil {
		return fail(err)
	}
	return d, v, nil
}

// orbitStep is the turn between an orbit's frames, in degrees.
const orbitStep = 2

// orbitMovie writes the movie of a 3-D rendering (--render MODE) whose
// camera turns deg degrees about the picture's vertical axis: frame i is
// render's picture with the turn y:θ before --rotate's, θ = i·deg/N for N
// frames, one per orbitStep degrees (the last short of deg: a whole turn
// loops).
func (o *planeOpts) orbitMovie(name, out string, ob *obliqueOpts, co *castOpts, mode string, deg float64,
	mo session.MovieOptions, stderr io.Writer) error {
	if mode == "" || !o.given["orbit"] {
		return usageError{"movie: --render MODE and --orbit DEG go together"}
	}
	if math.IsNaN(deg) || math.IsInf(deg, 0) || deg == 0 || math.Abs(deg) > 36000 {
		return usageError{fmt.Sprintf("movie: --orbit wants the degrees to turn, not %v", deg)}
	}
	for _, f := range []string{"axis", "timestamp"} {
		if o.given[f] {
			return usageError{"movie: --" + f + " does not go with --orbit"}
		}
	}
	co.mode = mode
	opts, err := co.options(o, "movie", true)
	if err != nil {
		return err
	}
	src, err := openSource(name)
	if err != nil {
		return err
	}
	m := src.Meta()
	for _, a := range []byte("TC") {
		at := map[byte]int{'T': o.t, 'C': o.c}[a]
		if at < 0 || at >= m.Size(a) {
			src.Close()
			return usageError{fmt.Sprintf("movie: --%c %d is outside 0..%d", a+'a'-'A', at, m.Size(a)-1)}
		}
	}
	n := max(1, int(math.Round(math.Abs(deg)/orbitStep)))
	frames := make([]oblique.Plane, n)
	for i := range frames {
		turn := *ob
		turn.rotate = "y:" + fmt.Sprint(float64(i)*deg/float64(n))
		if ob.rotate != "" {
			turn.rotate += "," + ob.rotate
		}
		p, in, err := turn.plane(m, o.t, o.c)
		if err != nil {
			src.Close()
			return usageError{"movie: " + err.Error()}
		}
		frames[i], opts.Interp = p, in
	}
	d, v, err := o.castView("movie", name, src)
	if err != nil {
		return err
	}
	defer d.Release()
	mv, err := session.NewMovie(d, v, false, false)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer mv.Close()
	if err := mv.Orbit(frames, o.level, opts); err != nil {
		return usageError{"movie: " + err.Error()}
	}
	bar := newProgressBar(stderr)
	bar.unit = "frames"
	defer bar.finish()
	mo.Progress = func(done, total int) { bar.phase("frames", done, total) }
	mo.Tidied = func(removed []string) { bar.note("vastview: " + staleNote(removed, "")) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := mv.Write(ctx, out, mo); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	return nil
}
