package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"vastview/loader"
	"vastview/render"
)

// planeOpts are the options of `vastview plane`.
type planeOpts struct {
	out, orient, window, levelRange, colormap string
	t, c, z, index, level                     int
}

func cmdPlane(args []string) error {
	fs := flag.NewFlagSet("plane", flag.ContinueOnError)
	var o planeOpts
	fs.StringVar(&o.out, "out", "", "output file (.raw or .png)")
	fs.IntVar(&o.t, "t", 0, "time point")
	fs.IntVar(&o.c, "c", 0, "channel")
	fs.IntVar(&o.z, "z", -1, "plane along Z (xy planes)")
	fs.StringVar(&o.orient, "plane", "xy", "xy, xz or yz")
	fs.IntVar(&o.index, "index", -1, "position along the axis normal to the plane")
	fs.IntVar(&o.level, "level", 0, "stored level")
	fs.StringVar(&o.window, "window", "", "WIDTH,CENTRE display window")
	fs.StringVar(&o.levelRange, "level-range", "", "LO,HI display range")
	fs.StringVar(&o.colormap, "colormap", "gray", "colormap")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"plane: " + err.Error()}
	}
	if len(pos) != 1 || o.out == "" {
		return usageError{"plane needs SRC and --out F"}
	}
	ext := strings.ToLower(filepath.Ext(o.out))
	if ext != ".raw" && ext != ".png" {
		return usageError{"plane: --out must end in .raw or .png"}
	}
	var cm *render.Colormap
	rgb := ext == ".png" && o.colormap == render.RGB
	if ext == ".png" && !rgb {
		if cm, err = render.ColormapNamed(o.colormap); err != nil {
			return usageError{"plane: " + err.Error()}
		}
	}
	sel, err := o.selection()
	if err != nil {
		return usageError{"plane: " + err.Error()}
	}
	src, err := openSource(pos[0])
	if err != nil {
		return err
	}
	defer src.Close()
	if rgb {
		return o.writeRGB(pos[0], src, sel)
	}
	buf, w, h, err := loader.ReadPlane(context.Background(), src, o.level, sel)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if ext == ".raw" {
		return writeFileAtomic(o.out, buf)
	}
	dt := src.Meta().DType
	lo, hi, err := o.displayRange(buf, dt)
	if err != nil {
		return usageError{"plane: " + err.Error()}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, render.Plane(buf, dt, w, h, lo, hi, cm)); err != nil {
		return err
	}
	return writeFileAtomic(o.out, b.Bytes())
}

// writeRGB draws a plane of colour pixels as the viewer does with the rgb
// colormap: the window applies to each sample, and is 0 to the type's
// maximum for unsigned integers unless given.
func (o *planeOpts) writeRGB(name string, src loader.Source, sel loader.Plane) error {
	m := src.Meta()
	if m.Size('C') != 3 || m.AxisIndex('C') < 0 {
		return usageError{"plane: --colormap rgb needs three samples on the C axis"}
	}
	var samples [3][]byte
	var w, h int
	for c := range samples {
		sel.At['C'] = c
		buf, pw, ph, err := loader.ReadPlane(context.Background(), src, o.level, sel)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		samples[c], w, h = buf, pw, ph
	}
	dt := m.DType
	lo, hi, err := o.displayRange(samples[1], dt)
	if err != nil {
		return usageError{"plane: " + err.Error()}
	}
	if wlo, whi, ok := render.RGBWindow(dt); ok && o.window == "" && o.levelRange == "" {
		lo, hi = wlo, whi
	}
	var b bytes.Buffer
	if err := png.Encode(&b, render.PlaneRGB(samples, dt, w, h, lo, hi)); err != nil {
		return err
	}
	return writeFileAtomic(o.out, b.Bytes())
}

// selection turns the options into a plane: --index is the position along
// the axis normal to the plane (Z for xy, Y for xz, X for yz); for xy planes
// --z says the same.
func (o *planeOpts) selection() (loader.Plane, error) {
	normal := map[string]byte{"xy": 'Z', "xz": 'Y', "yz": 'X'}[strings.ToLower(o.orient)]
	if normal == 0 {
		return loader.Plane{}, fmt.Errorf("--plane must be xy, xz or yz, not %q", o.orient)
	}
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
	return loader.Plane{Orientation: o.orient, At: at}, nil
}

// displayRange is the window the PNG is drawn with: --window, --level-range,
// or auto-contrast over the plane.
func (o *planeOpts) displayRange(buf []byte, dt loader.DType) (lo, hi float64, err error) {
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
	lo, hi = render.AutoRange(buf, dt)
	return lo, hi, nil
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

// writeFileAtomic writes data to a temporary file beside path and renames it.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".vastview-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
