package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"vastview/base/fsutil"
	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/session"
)

// planeOpts are the options of `vastview plane`.
type planeOpts struct {
	out, orient, window, levelRange, colormap string
	display                                   string // --orient: the display convention
	channels, colors, windows                 string
	overlay                                   string
	opacity                                   float64
	project, slab                             string
	scalebar                                  bool
	t, c, z, index, level                     int
	given                                     map[string]bool // the flags given
	stderr                                    io.Writer
}

func cmdPlane(args []string, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("plane", flag.ContinueOnError)
	o := planeOpts{stderr: stderr}
	fs.StringVar(&o.out, "out", "", "output file (.raw or .png)")
	o.flags(fs)
	var ob obliqueOpts
	ob.flags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"plane: " + err.Error()}
	}
	o.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })
	if len(pos) != 1 || o.out == "" {
		return usageError{"plane needs SRC and --out F"}
	}
	ext := strings.ToLower(filepath.Ext(o.out))
	if ext != ".raw" && ext != ".png" {
		return usageError{"plane: --out must end in .raw or .png"}
	}
	if o.overlay != "" && ext != ".png" {
		return usageError{"plane: --overlay draws labels over a picture: --out must end in .png"}
	}
	if err := o.check("plane"); err != nil {
		return err
	}
	sel, err := o.selection()
	if err != nil {
		return usageError{"plane: " + err.Error()}
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
	if ob.asked(o.given) {
		return o.writeOblique(pos[0], src, &ob, ext)
	}
	chans, err := o.composite(src.Meta(), ext)
	if err != nil {
		return usageError{"plane: " + err.Error()}
	}
	if ext == ".png" {
		owned = false
		return o.writeDrawn(pos[0], src, sel, chans)
	}
	if o.project != "" {
		return o.writeProjection(pos[0], src, sel, chans)
	}
	if len(chans) > 0 {
		return o.writeComposite(pos[0], src, sel, chans)
	}
	buf, _, _, err := loader.ReadPlane(context.Background(), src, o.level, sel)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	return writeOut(o.out, buf)
}

// writeDrawn writes the PNG of plane sel of src (named name, which it
// owns) as the window draws it (session.Picture): the view pictureView
// makes, with the --overlay labels, the --project projection and the
// scale bar, drawn complete.
func (o *planeOpts) writeDrawn(name string, src loader.Source, sel loader.Plane, chans []render.Channel) error {
	d, err := session.OpenData(session.Canonical(name), src, session.DataOptions{Hold: true, DiskRoot: "-"})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer d.Release()
	m := d.Pyr.Meta()
	if err := checkLevelPlane(m, o.level, sel); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	v, err := o.pictureView("plane", m, sel.Orientation, levelZero(m, o.level, sel), chans)
	if err != nil {
		return err
	}
	pc, err := session.NewPicture(d, v, o.scalebar)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer pc.Close()
	if o.overlay != "" {
		if err := o.addLabels(pc, name, m, sel, false); err != nil {
			return err
		}
	}
	if o.project != "" {
		op, _ := loader.ParseProjection(o.project)
		_, _, normal := sel.Orientation.Axes()
		a, b, err := o.slabRange("plane", 0, m.Size(normal)-1)
		if err != nil {
			return err
		}
		if err := pc.Project(op, a, b); err != nil {
			return usageError{"plane: --project: " + err.Error()}
		}
	}
	img, err := pc.Draw(context.Background())
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return writePNG(o.out, img)
}

// checkLevelPlane refuses a plane sel that level k of m does not hold, as
// loader.ReadPlane does.
func checkLevelPlane(m *loader.Meta, k int, sel loader.Plane) error {
	if k < 0 || k >= len(m.Levels) {
		return fmt.Errorf("no level %d (%d with the computed ones)", k, len(m.Levels))
	}
	row, col, _ := sel.Orientation.Axes()
	if m.AxisIndex(row) < 0 || m.AxisIndex(col) < 0 {
		return fmt.Errorf("plane %s needs axes %c and %c; the data has %s", sel.Orientation, row, col, m.Axes)
	}
	shape := m.Levels[k].Shape
	for a, i := range sel.At {
		ai := m.AxisIndex(a)
		switch {
		case a == row || a == col:
		case ai < 0 && i != 0:
			return fmt.Errorf("the data has no %c axis (axes %s)", a, m.Axes)
		case ai >= 0 && (i < 0 || i >= shape[ai]):
			return fmt.Errorf("%c=%d is outside 0..%d", a, i, shape[ai]-1)
		}
	}
	return nil
}

// levelZero is plane sel, whose positions are level k's samples, with
// the level-0 positions of those samples (what a view holds).
func levelZero(m *loader.Meta, k int, sel loader.Plane) loader.Plane {
	out := loader.Plane{Orientation: sel.Orientation, At: map[byte]int{}}
	for a, i := range sel.At {
		ai := m.AxisIndex(a)
		if k > 0 && ai >= 0 && m.Levels[k].Shape[ai] < m.Levels[0].Shape[ai] {
			f := m.Levels[0].Shape[ai] / m.Levels[k].Shape[ai]
			if s0, sk := m.Levels[0].Scale[ai], m.Levels[k].Scale[ai]; s0 > 0 && sk > 0 {
				f = int(math.Round(sk / s0))
			}
			i *= max(f, 1)
		}
		out.At[a] = i
	}
	return out
}

// check refuses the view options that do not go together, for command
// cmd.
func (o *planeOpts) check(cmd string) error {
	if o.given["opacity"] && (o.overlay == "" || !(o.opacity >= 0 && o.opacity <= 1)) {
		return usageError{cmd + ": --opacity wants a number from 0 to 1, with --overlay"}
	}
	if o.slab != "" && o.project == "" {
		return usageError{cmd + ": --slab goes with --project"}
	}
	if o.project != "" {
		if _, err := loader.ParseProjection(o.project); err != nil {
			return usageError{cmd + ": --project: " + err.Error()}
		}
	}
	if o.given["colormap"] && o.colormap != render.RGB {
		if _, err := render.ColormapNamed(o.colormap); err != nil {
			return usageError{cmd + ": " + err.Error()}
		}
	}
	if _, err := session.ParseConvention(o.display); err != nil {
		return usageError{cmd + ": --orient: " + err.Error()}
	}
	if o.given["channels"] && (o.given["c"] || o.given["colormap"] || o.given["window"] || o.given["level-range"]) {
		return usageError{cmd + ": give --channels (a composite) or --c, --colormap, --window, --level-range (one channel), not both"}
	}
	return nil
}

// slabRange is --slab's first and last planes, or first..last without it.
func (o *planeOpts) slabRange(cmd string, first, last int) (a, b int, err error) {
	if o.slab == "" {
		return first, last, nil
	}
	x, y, ok := strings.Cut(o.slab, ":")
	var e1, e2 error
	a, e1 = strconv.Atoi(strings.TrimSpace(x))
	b, e2 = strconv.Atoi(strings.TrimSpace(y))
	if !ok || e1 != nil || e2 != nil {
		return 0, 0, usageError{fmt.Sprintf("%s: --slab wants A:B, the first and last planes, not %q", cmd, o.slab)}
	}
	return a, b, nil
}

// flags registers the options that say which plane is drawn and how
// (all but --out).
func (o *planeOpts) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.t, "t", 0, "time point")
	fs.IntVar(&o.c, "c", 0, "channel")
	fs.IntVar(&o.z, "z", -1, "plane along Z (xy planes)")
	fs.StringVar(&o.orient, "plane", "xy", "xy, xz or yz")
	fs.IntVar(&o.index, "index", -1, "position along the axis normal to the plane")
	fs.IntVar(&o.level, "level", 0, "stored level")
	fs.StringVar(&o.window, "window", "", "WIDTH,CENTRE display window")
	fs.StringVar(&o.levelRange, "level-range", "", "LO,HI display range")
	fs.StringVar(&o.colormap, "colormap", "gray", "colormap")
	fs.StringVar(&o.channels, "channels", "", "all or I,J,... channels of a composite")
	fs.StringVar(&o.colors, "colors", "", "C1,C2,... colours of the composite's channels")
	fs.StringVar(&o.windows, "windows", "", "LO:HI,LO:HI,... windows of the composite's channels")
	fs.StringVar(&o.project, "project", "", "max, min or mean: project along the axis normal to the plane")
	fs.StringVar(&o.slab, "slab", "", "A:B, the planes projected (all without it)")
	fs.StringVar(&o.overlay, "overlay", "", "label image laid over the picture")
	fs.BoolVar(&o.scalebar, "scalebar", false, "draw a scale bar on the PNG")
	fs.StringVar(&o.display, "orient", "radiological", "radiological, neurological or storage: how a volume with an anatomical orientation is laid out")
	fs.Float64Var(&o.opacity, "opacity", 0.5, "opacity of the --overlay labels, 0 to 1")
}

// writeProjection writes the samples of the projection --project asks
// for along the axis normal to the plane, over --slab or every plane (of
// every channel --channels picks, one after another). A --level beyond
// the levels the file stores is computed.
func (o *planeOpts) writeProjection(name string, src loader.Source, sel loader.Plane, chans []render.Channel) error {
	op, _ := loader.ParseProjection(o.project)
	m := src.Meta()
	var from loader.Source = src
	if o.level >= len(m.Levels) {
		pyr, err := levels.Open(src, levels.Options{CacheBytes: 512 << 20})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer pyr.Close()
		from = pyr
	}
	fm := from.Meta()
	_, _, normal := sel.Orientation.Axes()
	if o.level < 0 || o.level >= len(fm.Levels) {
		return usageError{fmt.Sprintf("plane: no level %d (%d with the computed ones)", o.level, len(fm.Levels))}
	}
	a, b, err := o.slabRange("plane", 0, fm.Levels[o.level].Shape[max(0, fm.AxisIndex(normal))]-1)
	if err != nil {
		return err
	}
	if len(chans) == 0 {
		chans = []render.Channel{{C: o.c}}
	}
	planes := make([][]byte, len(chans))
	for i, ch := range chans {
		sel.At['C'] = ch.C
		buf, _, _, _, err := levels.ProjectPlane(context.Background(), from, o.level, sel, op, a, b)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		planes[i] = buf
	}
	return writeOut(o.out, bytes.Join(planes, nil))
}

// addLabels lays the labels of --overlay over pc, plane sel of the
// source name (whose metadata is m; with turned, an oblique plane at
// sel's time point, for which the labels need the three spatial axes),
// aligned by their physical coordinates. A label image that does not
// reach the plane leaves it as it is, and says so on stderr.
func (o *planeOpts) addLabels(pc *session.Picture, name string, m *loader.Meta, sel loader.Plane, turned bool) error {
	lab, err := openSource(o.overlay)
	if err != nil {
		return err
	}
	lm := lab.Meta()
	al, err := render.Align(m, lm)
	if err != nil {
		lab.Close()
		return fmt.Errorf("%s: cannot be laid over %s: %v", o.overlay, name, err)
	}
	row, col, normal := sel.Orientation.Axes()
	if lm.AxisIndex(row) < 0 || lm.AxisIndex(col) < 0 || turned && lm.AxisIndex(normal) < 0 {
		lab.Close()
		what := sel.Orientation.String() + " plane"
		if turned {
			what = "Z, Y and X axes for an oblique plane"
		}
		fmt.Fprintf(o.stderr, "vastview: %s has no %s: drawn without it\n", o.overlay, what)
		return nil
	}
	for i := 0; i < len(lm.Axes); i++ {
		a := lm.Axes[i]
		if a == row || a == col || a == 'C' || turned && a == normal {
			continue
		}
		if _, ok := al.Index(a, sel.At[a]); !ok {
			lab.Close()
			fmt.Fprintf(o.stderr, "vastview: %s does not reach %c %d of %s: drawn without it\n", o.overlay, a, sel.At[a], name)
			return nil
		}
	}
	ld, err := session.OpenData(session.Canonical(o.overlay), lab, session.DataOptions{Hold: true, Labels: true, DiskRoot: "-"})
	if err != nil {
		return fmt.Errorf("%s: %w", o.overlay, err)
	}
	defer ld.Release()
	if err := pc.AddLabels(ld, o.opacity); err != nil {
		return fmt.Errorf("%s: cannot be laid over %s: %v", o.overlay, name, err)
	}
	return nil
}

// composite returns the channels of the composite the options and the
// file ask for, in the order drawn; none for one channel. A PNG of data of
// several channels is a composite of those the file shows, each in its
// colour and window, unless the file asks for one channel at a time or an
// option picks one (--c, --colormap, --window, --level-range); --channels
// picks them, --colors and --windows override their colours and windows
// in the order picked (an empty entry keeps it). A .raw output holds the
// planes of the channels --channels picks, one after another.
func (o *planeOpts) composite(m *loader.Meta, ext string) ([]render.Channel, error) {
	def, visible, mode := session.DefaultChannels(m)
	multi := len(def) > 1 && !m.RGB
	if !multi {
		if o.given["channels"] || o.given["colors"] || o.given["windows"] {
			return nil, fmt.Errorf("--channels, --colors and --windows are for data of several channels")
		}
		return nil, nil
	}
	if !o.given["channels"] && (ext == ".raw" || o.given["c"] || o.given["colormap"] || o.given["window"] || o.given["level-range"] || mode != session.Composite) {
		if o.given["colors"] || o.given["windows"] {
			return nil, fmt.Errorf("--colors and --windows are for a composite: give --channels")
		}
		return nil, nil
	}
	var pick []int
	switch {
	case !o.given["channels"]:
		for c := range def {
			if visible[c] {
				pick = append(pick, c)
			}
		}
	case o.channels == "all":
		for c := range def {
			pick = append(pick, c)
		}
	default:
		for _, f := range strings.Split(o.channels, ",") {
			c, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || c < 0 || c >= len(def) {
				return nil, fmt.Errorf("--channels wants all or channel numbers from 0 to %d, not %q", len(def)-1, f)
			}
			pick = append(pick, c)
		}
	}
	if len(pick) == 0 {
		return nil, fmt.Errorf("the file shows none of its %d channels: pick some with --channels", len(def))
	}
	chans := make([]render.Channel, len(pick))
	for i, c := range pick {
		chans[i] = def[c]
	}
	if ext == ".raw" {
		return chans, nil
	}
	err := perChannel(o.colors, "--colors", "colours", len(chans), func(i int, name string) error {
		if _, err := render.ColormapNamed(name); err != nil {
			return fmt.Errorf("--colors: %v", err)
		}
		chans[i].Colormap = name
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = perChannel(o.windows, "--windows", "windows", len(chans), func(i int, w string) error {
		a, b, ok := strings.Cut(w, ":")
		lo, err1 := strconv.ParseFloat(a, 64)
		hi, err2 := strconv.ParseFloat(b, 64)
		if !ok || err1 != nil || err2 != nil || hi <= lo {
			return fmt.Errorf("--windows wants LO:HI with LO < HI for each channel, not %q", w)
		}
		chans[i].Lo, chans[i].Hi = lo, hi
		return nil
	})
	if err != nil {
		return nil, err
	}
	return chans, nil
}

// perChannel hands set each entry of list, a comma-separated option given
// for n channels in turn (empty entries skipped), with its index; more
// entries than channels are an error.
func perChannel(list, flag, what string, n int, set func(i int, v string) error) error {
	if list == "" {
		return nil
	}
	vals := strings.Split(list, ",")
	if len(vals) > n {
		return fmt.Errorf("%s gives %d %s for %d channels", flag, len(vals), what, n)
	}
	for i, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			if err := set(i, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeComposite reads the plane of each of chans and writes them one
// after another.
func (o *planeOpts) writeComposite(name string, src loader.Source, sel loader.Plane, chans []render.Channel) error {
	planes := make([][]byte, len(chans))
	for i, ch := range chans {
		sel.At['C'] = ch.C
		buf, _, _, err := loader.ReadPlane(context.Background(), src, o.level, sel)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		planes[i] = buf
	}
	return writeOut(o.out, bytes.Join(planes, nil))
}

// writePNG encodes img and writes it to path.
func writePNG(path string, img image.Image) error {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return writeOut(path, b.Bytes())
}

// selection turns the options into a plane: --index is the position along
// the axis normal to the plane (Z for xy, Y for xz, X for yz); for xy planes
// --z says the same.
func (o *planeOpts) selection() (loader.Plane, error) {
	orient, err := loader.ParseOrientation(o.orient)
	if err != nil || o.orient == "" {
		return loader.Plane{}, fmt.Errorf("--plane must be xy, xz or yz, not %q", o.orient)
	}
	_, _, normal := orient.Axes()
	at := map[byte]int{'T': o.t, 'C': o.c}
	if o.z >= 0 {
		at['Z'] = o.z
	}
	if o.index >= 0 {
		if normal == 'Z' && o.z >= 0 && o.z != o.index {
			return loader.Plane{}, fmt.Errorf("--z %d and --index %d disagree", o.z, o.index)
		}
		at[normal] = o.index
	}
	if normal != 'Z' {
		delete(at, 'Z')
	}
	return loader.Plane{Orientation: orient, At: at}, nil
}

// displayRange is the window --window or --level-range gives; 0, 0 (for
// auto-contrast to choose) when neither is given.
func (o *planeOpts) displayRange() (lo, hi float64, err error) {
	switch {
	case o.window != "" && o.levelRange != "":
		return 0, 0, fmt.Errorf("give --window or --level-range, not both")
	case o.window != "":
		w, c, err := floatPair(o.window)
		if err != nil || w <= 0 {
			return 0, 0, fmt.Errorf("--window wants WIDTH,CENTRE with WIDTH > 0, not %q", o.window)
		}
		return c - w/2, c + w/2, nil
	case o.levelRange != "":
		lo, hi, err := floatPair(o.levelRange)
		if err != nil || hi <= lo {
			return 0, 0, fmt.Errorf("--level-range wants LO,HI with LO < HI, not %q", o.levelRange)
		}
		return lo, hi, nil
	}
	return 0, 0, nil
}

func floatPair(s string) (a, b float64, err error) {
	x, y, ok := strings.Cut(s, ",")
	if !ok {
		return 0, 0, fmt.Errorf("want two numbers")
	}
	if a, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
		return 0, 0, err
	}
	b, err = strconv.ParseFloat(strings.TrimSpace(y), 64)
	return a, b, err
}

// writeOut puts data in place at path (see fsutil.WriteAtomic); an error
// names path once.
func writeOut(path string, data []byte) error {
	if err := fsutil.WriteAtomic(path, data); err != nil {
		return fmt.Errorf("%s: %w", path, loader.StripPath(err))
	}
	return nil
}

// noteMissing says on stderr, as a note (the command still succeeds),
// how many chunks the reads of src found missing where a coarser level
// holds data (loader.ErrMissing): they were drawn as the fill value, as
// Zarr reads an absent chunk, but they were lost rather than left out.
func noteMissing(stderr io.Writer, name string, src loader.Source) {
	if n := loader.Missing(src); n > 0 {
		what := "chunks were"
		if n == 1 {
			what = "chunk was"
		}
		fmt.Fprintf(stderr, "vastview: note: %s: %d %s absent where the level above holds data; read as the fill value\n", name, n, what)
	}
}
