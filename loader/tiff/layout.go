package tiff

import (
	"math"

	"vastview/loader"
)

// layout is how the pages of the stack map to axes, with the physical
// spacing the metadata gives.
type layout struct {
	format  string
	axes    []byte // page axes, slowest first (from "TZC")
	dims    []int  // pages along each page axis
	pages   int    // pages the metadata promises (0: unknown)
	spacing map[byte]float64
	units   map[byte]string
	chans   []loader.Channel // names and colours the metadata gives
	mode    string           // how the metadata says to show the channels (Meta.ChannelMode)
	// contiguous is true for metadata that ImageJ and tifffile write
	// (ImageJ, shaped and OME descriptions): these writers store the
	// images of an uncompressed stack back to back after page 0's, so a
	// page can be found without its IFD (see contiguous.go).
	contiguous bool
	// shaped is true for tifffile's shape description, which tifffile
	// writes on the first page of each series it writes.
	shaped bool
}

// plainLayout is a stack without axis metadata: n pages along Z.
func plainLayout(n int) *layout {
	l := &layout{format: "tiff", pages: n, spacing: map[byte]float64{}, units: map[byte]string{}}
	if n > 1 {
		l.axes, l.dims = []byte{'Z'}, []int{n}
	}
	return l
}

// metaLayout reads ImageJ, OME or tifffile metadata from page 0, or
// returns nil.
func (f *file) metaLayout(p0 *page) *layout {
	desc := f.ascii(p0.desc, maxOMEBytes)
	if desc == "" {
		return nil
	}
	if ij, ok := parseImageJ(desc); ok {
		if p0.spp > 1 && ij.channels > 1 {
			return nil
		}
		return f.imagejLayout(p0, ij)
	}
	if o, ok := parseOME(desc, p0.width, p0.height, p0.spp); ok {
		return omeLayout(o, p0.spp)
	}
	return shapedLayout(desc, p0)
}

func (f *file) imagejLayout(p0 *page, ij imagejInfo) *layout {
	l := &layout{format: "imagej-tiff", pages: ij.images, contiguous: true, spacing: map[byte]float64{}, units: map[byte]string{}}
	for _, a := range []struct {
		c byte
		n int
	}{{'T', ij.frames}, {'Z', ij.slices}, {'C', ij.channels}} {
		if a.n > 1 {
			l.axes = append(l.axes, a.c)
			l.dims = append(l.dims, a.n)
		}
	}
	unit := ngffUnit(ij.unit)
	if unit != "" {
		if x := f.pixelSize(p0.xres); x > 0 {
			l.spacing['X'], l.units['X'] = x, unit
		}
		yunit := unit
		if ij.yunit != "" {
			yunit = ngffUnit(ij.yunit)
		}
		if y := f.pixelSize(p0.yres); y > 0 && yunit != "" {
			l.spacing['Y'], l.units['Y'] = y, yunit
		}
		zunit := unit
		if ij.zunit != "" {
			zunit = ngffUnit(ij.zunit)
		}
		if ij.spacing > 0 && zunit != "" {
			l.spacing['Z'], l.units['Z'] = ij.spacing, zunit
		}
	}
	if ij.finterval > 0 {
		tunit := "second"
		if ij.tunit != "" {
			tunit = ngffUnit(ij.tunit)
		}
		l.spacing['T'], l.units['T'] = ij.finterval, tunit
	}
	l.chans = f.imagejChannels(p0, ij)
	if ij.channels > 1 {
		// ImageJ makes a composite image, shown in this mode, only of a
		// stack of several channels; tifffile writes mode=grayscale into
		// every hyperstack it is not told otherwise about.
		l.mode = ij.mode
	}
	return l
}

func omeLayout(o omeInfo, spp int) *layout {
	l := &layout{format: "ome-tiff", pages: o.planes, contiguous: true, spacing: map[byte]float64{}, units: map[byte]string{}}
	for i := 0; i < len(o.order); i++ {
		a := o.order[i]
		if n := o.size(a, spp); n > 1 {
			l.axes = append(l.axes, a)
			l.dims = append(l.dims, n)
		}
	}
	set := func(a byte, v float64, u, def string) {
		if v > 0 && !math.IsInf(v, 0) {
			l.spacing[a], l.units[a] = v, omeUnit(u, def)
		}
	}
	set('X', o.px.PhysicalSizeX, o.px.PhysicalSizeXUnit, "µm")
	set('Y', o.px.PhysicalSizeY, o.px.PhysicalSizeYUnit, "µm")
	set('Z', o.px.PhysicalSizeZ, o.px.PhysicalSizeZUnit, "µm")
	set('T', o.px.TimeIncrement, o.px.TimeIncrementUnit, "s")
	l.chans = o.channels(spp)
	return l
}

// banding says how strip-organised pages are cut into chunks: one page
// plane per chunk unless the plane is larger than maxPlane bytes; then a
// chunk is a band of about band bytes (whole strips when the strips are
// compressed, unless a strip is many bands: see stream.go).
type banding struct{ maxPlane, band int64 }

// defaultBanding is the banding Open reads with.
var defaultBanding = banding{maxPlane: 64 << 20, band: 16 << 20}

// chunkRows is the number of rows in one chunk of a strip-organised page.
func chunkRows(p *page) int {
	rb := int64(p.rowBytes())
	if rb*int64(p.height) <= p.bands.maxPlane {
		return p.height
	}
	rows := max(1, p.bands.band/rb)
	if p.compression != cNone && !p.bandedStrips() {
		rows = (rows + int64(p.bh) - 1) / int64(p.bh) * int64(p.bh)
	}
	return int(min(rows, int64(p.height)))
}

// buildMeta assembles the Meta of a stack of pages like p0 laid out by l.
// It returns the meta axis index of each page axis and of the sample axis
// (-1 if none).
func buildMeta(p0 *page, l *layout) (*loader.Meta, []int, int) {
	var axes []byte
	var shape, chunk []int
	var pageAxes []int
	for i, a := range l.axes {
		pageAxes = append(pageAxes, len(axes))
		axes = append(axes, a)
		shape = append(shape, l.dims[i])
		chunk = append(chunk, 1)
	}
	cAxis := -1
	if p0.spp > 1 {
		cAxis = len(axes)
		axes = append(axes, 'C')
		shape = append(shape, p0.spp)
		chunk = append(chunk, p0.blockSamples())
	}
	axes = append(axes, 'Y', 'X')
	shape = append(shape, p0.height, p0.width)
	if p0.tiled {
		chunk = append(chunk, p0.bh, p0.bw)
	} else {
		chunk = append(chunk, chunkRows(p0), p0.width)
	}
	spacing := make([]float64, len(axes))
	units := make([]string, len(axes))
	for i, a := range axes {
		spacing[i] = 1
		if v, ok := l.spacing[a]; ok && (a != 'C' || cAxis < 0) {
			spacing[i], units[i] = v, l.units[a]
		}
	}
	m := loader.NewMeta(l.format, string(axes), shape, p0.dtype, chunk, spacing, units)
	if len(l.chans) == m.Size('C') {
		m.Channels = l.chans
	}
	if cAxis < 0 {
		m.ChannelMode = l.mode
	}
	return m, pageAxes, cAxis
}
