package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"vastview/loader"
	"vastview/render"
	"vastview/session"
)

// cmdMovie renders the view of SRC at every position along an axis into
// an MP4 or a series of images.
func cmdMovie(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("movie", flag.ContinueOnError)
	o := planeOpts{stderr: stderr}
	o.flags(fs)
	axis := fs.String("axis", "", "t or z: what the frames step along (default: as the step keys, t for movies)")
	span := fs.String("range", "", "A:B, the first and last positions along the axis (default: all)")
	fps := fs.Float64("fps", 0, "frames per second of an MP4 (default: the file's rate along t, else 25)")
	overwrite := fs.Bool("overwrite", false, "replace an existing output")
	stamp := fs.Bool("timestamp", false, "write the time (the plane's position along z) on each frame")
	var ob obliqueOpts
	ob.flags(fs)
	var co castOpts
	co.flags(fs)
	renderMode := fs.String("render", "", "mip, minip, mean, alpha or iso: a 3-D rendering (with --orbit)")
	orbit := fs.Float64("orbit", 0, "with --render: the degrees the camera turns about the picture's vertical axis")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"movie: " + err.Error()}
	}
	o.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })
	if len(pos) != 2 {
		return usageError{"movie needs SRC and OUT (.mp4, a folder, or NAME.png / NAME.tif)"}
	}
	mo := session.MovieOptions{To: -1, FPS: *fps, Overwrite: *overwrite}
	switch strings.ToLower(*axis) {
	case "":
	case "t", "z":
		mo.Axis = strings.ToUpper(*axis)[0]
	default:
		return usageError{fmt.Sprintf("movie: --axis must be t or z, not %q", *axis)}
	}
	if *span != "" {
		a, b, ok := strings.Cut(*span, ":")
		var e1, e2 error
		mo.From, e1 = strconv.Atoi(strings.TrimSpace(a))
		mo.To, e2 = strconv.Atoi(strings.TrimSpace(b))
		if !ok || e1 != nil || e2 != nil || mo.From < 0 || mo.To < mo.From {
			return usageError{fmt.Sprintf("movie: --range wants A:B, the first and last positions, not %q", *span)}
		}
	}
	if o.given["fps"] && !(*fps > 0 && *fps <= 1000) {
		return usageError{"movie: --fps wants a rate above 0, at most 1000"}
	}
	if *renderMode != "" || o.given["orbit"] {
		return o.orbitMovie(pos[0], pos[1], &ob, &co, *renderMode, *orbit, mo, stderr)
	}
	for _, f := range []string{"rotate", "center", "size", "pixel", "interp", "step", "iso"} {
		if o.given[f] {
			return usageError{"movie: --" + f + " goes with --render and --orbit"}
		}
	}
	if err := o.check("movie"); err != nil {
		return err
	}
	sel, err := o.selection()
	if err != nil {
		return usageError{"movie: " + err.Error()}
	}
	orient := sel.Orientation
	name, out := pos[0], pos[1]
	src, err := openSource(name)
	if err != nil {
		return err
	}
	m := src.Meta()
	chans, err := o.composite(m, ".png")
	if err != nil {
		src.Close()
		return usageError{"movie: " + err.Error()}
	}
	d, err := session.OpenData(session.Canonical(name), src, session.DataOptions{Hold: true})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer d.Release()
	v, err := o.pictureView("movie", d.Pyr.Meta(), orient, sel, chans)
	if err != nil {
		return err
	}
	mv, err := session.NewMovie(d, v, o.scalebar, *stamp)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer mv.Close()
	if o.overlay != "" {
		if err := addOverlay(mv, name, o.overlay, o.opacity); err != nil {
			return err
		}
	}
	if o.project != "" {
		if mo.Axis == 0 {
			mo.Axis = 'T' // a projection's movie runs through time
		}
		op, _ := loader.ParseProjection(o.project)
		_, _, normal := orient.Axes()
		a, b, err := o.slabRange("movie", 0, d.Pyr.Meta().Size(normal)-1)
		if err != nil {
			return err
		}
		if err := mv.Project(op, a, b); err != nil {
			return usageError{"movie: --project: " + err.Error()}
		}
	}
	if _, _, _, err := session.MovieAxis(d.Pyr.Meta(), v, mo); err != nil {
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

// pictureView is the view the picture of command cmd (a plane's PNG, a
// movie's frames) shows of data m: plane sel (level-0 positions) at its
// --level's size (one screen pixel a sample along the columns, rows
// stretched by the physical aspect as the viewer does); the composite
// chans, or one channel as the viewer first shows it (data of one
// channel, or of several that the file shows one at a time in colour, in
// the file's colours and window; colour pixels in rgb) unless an option
// picks the channel or how to draw it. Windows not given are chosen by
// auto-contrast, as the window chooses them.
func (o *planeOpts) pictureView(cmd string, m *loader.Meta, orient render.Orientation, sel loader.Plane, chans []render.Channel) (render.View, error) {
	if o.level < 0 || o.level >= len(m.Levels) {
		return render.View{}, usageError{fmt.Sprintf("%s: no level %d (%d with the computed ones)", cmd, o.level, len(m.Levels))}
	}
	if o.colormap == render.RGB && (m.Size('C') != 3 || m.AxisIndex('C') < 0) {
		return render.View{}, usageError{cmd + ": --colormap rgb needs three samples on the C axis"}
	}
	row, col, _ := orient.Axes()
	ri, ci := m.AxisIndex(row), m.AxisIndex(col)
	if ri < 0 || ci < 0 {
		return render.View{}, usageError{fmt.Sprintf("%s: plane %s needs axes %c and %c; the data has %s", cmd, sel.Orientation, row, col, m.Axes)}
	}
	l := m.Levels[o.level].Shape
	v := render.View{Orientation: orient, Width: l[ci], Height: int(math.Round(float64(l[ri]) * render.Aspect(m, orient)))}
	conv, _ := session.ParseConvention(o.display) // checked by check
	v.Flips = session.Flips(m, conv)
	if v.Flip().Swap { // the plane's rows across the picture
		v.Width, v.Height = v.Height, v.Width
	}
	for a, i := range sel.At {
		v.SetAt(a, i)
	}
	if len(chans) > 0 {
		v.Channels, v.C = chans, chans[0].C
		return v, nil
	}
	def, _, mode := session.DefaultChannels(m)
	picked := o.given["c"] || o.given["colormap"] || o.given["window"] || o.given["level-range"]
	ch := render.Channel{C: o.c, Colormap: o.colormap}
	switch {
	case m.RGB && !o.given["colormap"] && !o.given["c"] || o.colormap == render.RGB:
		ch.Colormap = render.RGB
		ch.Lo, ch.Hi, _ = render.RGBWindow(m.DType)
	case len(def) == 1 || mode == session.OneColor && !picked:
		ch = def[min(max(o.c, 0), len(def)-1)]
	}
	if o.given["colormap"] {
		ch.Colormap = o.colormap
	}
	if o.given["window"] || o.given["level-range"] {
		lo, hi, err := o.displayRange()
		if err != nil {
			return render.View{}, usageError{cmd + ": " + err.Error()}
		}
		// In the file's units (HU, NIfTI's scl_slope/scl_inter applied),
		// as the viewer's window: drawn on the stored values.
		lo, hi = m.ValueScale.Stored(lo), m.ValueScale.Stored(hi)
		ch.Lo, ch.Hi = min(lo, hi), max(lo, hi)
	}
	v.C, v.Colormap, v.Lo, v.Hi = ch.C, ch.Colormap, ch.Lo, ch.Hi
	return v, nil
}

// addOverlay lays the labels at path over the movie of name.
func addOverlay(mv *session.Movie, name, path string, opacity float64) error {
	lab, err := openSource(path)
	if err != nil {
		return err
	}
	ld, err := session.OpenData(session.Canonical(path), lab, session.DataOptions{Hold: true, Labels: true})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer ld.Release()
	if err := mv.AddLabels(ld, opacity); err != nil {
		return fmt.Errorf("%s: cannot be laid over %s: %v", path, name, err)
	}
	return nil
}
