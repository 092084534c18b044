package tiff

import (
	"fmt"

	"vastview/loader"
)

// page is one parsed IFD. Block offsets and byte counts stay in the file
// and are read on demand. A page is immutable once parsed.
type page struct {
	bands       banding // how the page is cut into chunks (its file's)
	ifd, next   int64
	subfile     uint64
	width       int
	height      int
	spp         int // samples per pixel
	dtype       loader.DType
	bits        int  // stored bits per sample (packed below 8, and 9 to 15, unpacked on read)
	half        bool // 16-bit floats, read as float32
	lsbFirst    bool // FillOrder 2: bits stored least significant first
	compression int
	faxFill     bool // CCITT Group 3 with fill bits before each EOL
	ycc         bool // YCbCr pixels without JPEG compression, read as RGB
	predictor   int
	planar      bool // PlanarConfiguration 2 with several samples
	photometric int
	tiled       bool
	bw, bh      int // block (tile, or strip: full width x RowsPerStrip) size
	across      int // blocks across one plane
	down        int // blocks down one plane
	nblocks     int // blocks in the page (all planes)
	offsets     entry
	counts      entry
	hasCounts   bool
	shift       int64 // added to every block offset (pages without an IFD)

	desc, colormap, xres, yres entry
	subifds                    entry // reduced-resolution copies of the page
	resUnit                    int
	ijMeta, ijCounts           entry // ImageJ's display metadata and its block sizes
	jpegTables                 entry // JPEG: the tables every block's stream uses
}

// fields collects the raw entries of an IFD that parsePage interprets.
type fields map[uint16]entry

// readFields reads the entries of the IFD at off that the reader uses.
func (f *file) readFields(off int64) (fields, int64, error) {
	n, next, err := f.ifdHead(off)
	if err != nil {
		return nil, 0, err
	}
	fs := make(fields, 24)
	for i := int64(0); i < n; i++ {
		e := f.entryAt(off, i)
		switch e.tag {
		case tagNewSubfileType, tagImageWidth, tagImageLength, tagBitsPerSample,
			tagCompression, tagPhotometric, tagFillOrder, tagDescription,
			tagStripOffsets, tagSamplesPerPixel, tagRowsPerStrip,
			tagStripByteCounts, tagXResolution, tagYResolution, tagPlanarConfig,
			tagResolutionUnit, tagPredictor, tagColorMap, tagTileWidth,
			tagTileLength, tagTileOffsets, tagTileByteCounts, tagSampleFormat,
			tagImageDepth, tagSubIFDs, tagIJMetaCounts, tagIJMeta, tagJPEGTables,
			tagExtraSamples, tagYCbCrSubSamp, tagT4Options, tagT6Options:
			if _, dup := fs[e.tag]; !dup {
				fs[e.tag] = e
			}
		}
	}
	return fs, next, nil
}

// scalar returns the first value of an unsigned integer tag, def if absent.
func (f *file) scalar(fs fields, tag uint16, def uint64) (uint64, error) {
	e, ok := fs[tag]
	if !ok {
		return def, nil
	}
	if !isUint(e) || e.count < 1 {
		return 0, formatErr("bad tag %d", tag)
	}
	if err := f.values(e, fmt.Sprintf("values of tag %d", tag)); err != nil {
		return 0, err
	}
	return f.uintAt(e, 0), nil
}

// perSample reads a tag that holds one value per sample, requiring them all
// equal (as the reader needs).
func (f *file) perSample(fs fields, tag uint16, spp int, def uint64, what string) (uint64, error) {
	e, ok := fs[tag]
	if !ok {
		return def, nil
	}
	if !isUint(e) || e.count < 1 {
		return 0, formatErr("bad %s tag", what)
	}
	if err := f.values(e, what+" values"); err != nil {
		return 0, err
	}
	v := f.uintAt(e, 0)
	for i := uint64(1); i < e.count && i < uint64(spp); i++ {
		if f.uintAt(e, i) != v {
			return 0, unsupported("samples of different %s", what)
		}
	}
	return v, nil
}

// extraSamples returns the number of extra samples (alpha, or unspecified)
// the ExtraSamples tag declares, 0 without one.
func (f *file) extraSamples(fs fields) (int, error) {
	e, ok := fs[tagExtraSamples]
	if !ok {
		return 0, nil
	}
	if !isUint(e) || e.count > 1<<12 {
		return 0, formatErr("bad ExtraSamples tag")
	}
	return int(e.count), f.values(e, "ExtraSamples values")
}

// parsePage reads and checks the IFD at off.
func (f *file) parsePage(off int64) (*page, error) {
	fs, next, err := f.readFields(off)
	if err != nil {
		return nil, err
	}
	p := &page{ifd: off, next: next, bands: f.bands}
	if err := f.parseGeometry(p, fs); err != nil {
		return nil, err
	}
	if err := f.parseSamples(p, fs); err != nil {
		return nil, err
	}
	if err := f.parseCoding(p, fs); err != nil {
		return nil, err
	}
	if err := f.parseBlocks(p, fs); err != nil {
		return nil, err
	}
	p.desc, p.colormap = fs[tagDescription], fs[tagColorMap]
	p.xres, p.yres = fs[tagXResolution], fs[tagYResolution]
	p.subifds = fs[tagSubIFDs]
	p.ijMeta, p.ijCounts = fs[tagIJMeta], fs[tagIJMetaCounts]
	ru, _ := f.scalar(fs, tagResolutionUnit, 2)
	p.resUnit = int(ru)
	if p.photometric == 3 {
		if err := f.checkPalette(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// maxSide bounds the width and height of a page.
const maxSide = 1 << 30

func (f *file) parseGeometry(p *page, fs fields) error {
	var err error
	if p.subfile, err = f.scalar(fs, tagNewSubfileType, 0); err != nil {
		return err
	}
	if _, ok := fs[tagImageWidth]; !ok {
		return formatErr("IFD at offset %d has no ImageWidth", p.ifd)
	}
	if _, ok := fs[tagImageLength]; !ok {
		return formatErr("IFD at offset %d has no ImageLength", p.ifd)
	}
	w, err := f.scalar(fs, tagImageWidth, 0)
	if err != nil {
		return err
	}
	h, err := f.scalar(fs, tagImageLength, 0)
	if err != nil {
		return err
	}
	if w == 0 || h == 0 || w > maxSide || h > maxSide {
		return formatErr("bad image size %dx%d", w, h)
	}
	p.width, p.height = int(w), int(h)
	if d, err := f.scalar(fs, tagImageDepth, 1); err != nil || d != 1 {
		return unsupported("ImageDepth (volume tiles)")
	}
	return nil
}

func (f *file) parseSamples(p *page, fs fields) error {
	spp, err := f.scalar(fs, tagSamplesPerPixel, 1)
	if err != nil {
		return err
	}
	if spp == 0 || spp > 1<<12 {
		return formatErr("bad SamplesPerPixel %d", spp)
	}
	p.spp = int(spp)
	bps, err := f.perSample(fs, tagBitsPerSample, p.spp, 1, "BitsPerSample")
	if err != nil {
		return err
	}
	sf, err := f.perSample(fs, tagSampleFormat, p.spp, 1, "SampleFormat")
	if err != nil {
		return err
	}
	p.bits = int(bps)
	switch {
	case (sf == 1 || sf == 4) && bps >= 1 && bps < 8:
		p.dtype = loader.Uint8
	case (sf == 1 || sf == 4) && bps > 8 && bps < 16:
		p.dtype = loader.Uint16
	case sf == 1 || sf == 4:
		p.dtype = loader.IntDType(int(bps), false)
	case sf == 2:
		p.dtype = loader.IntDType(int(bps), true)
	case sf == 3 && bps == 16:
		p.dtype, p.half = loader.Float32, true
	case sf == 3 && bps == 32:
		p.dtype = loader.Float32
	case sf == 3 && bps == 64:
		p.dtype = loader.Float64
	}
	if p.dtype == loader.Invalid {
		kinds := map[uint64]string{1: "unsigned", 2: "signed", 3: "float", 4: "unsigned", 5: "complex int", 6: "complex float"}
		k, ok := kinds[sf]
		if !ok {
			return unsupported("SampleFormat %d", sf)
		}
		return unsupported("%d-bit %s samples", bps, k)
	}
	pc, err := f.scalar(fs, tagPlanarConfig, 1)
	if err != nil {
		return err
	}
	if pc != 1 && pc != 2 {
		return formatErr("bad PlanarConfiguration %d", pc)
	}
	p.planar = pc == 2 && p.spp > 1
	ph, err := f.scalar(fs, tagPhotometric, 1)
	if err != nil {
		return err
	}
	p.photometric = int(ph)
	switch ph {
	case 6:
		if p.spp != 3 {
			return formatErr("YCbCr image with %d samples", p.spp)
		}
	case 32844, 32845:
		return unsupported("LogLuv colour")
	case 3:
		extra, err := f.extraSamples(fs)
		if err != nil {
			return err
		}
		if p.spp != 1 && (p.spp != 2 || extra != 1) {
			return formatErr("palette image with %d samples, %d of them extra", p.spp, extra)
		}
	}
	return nil
}

func (f *file) parseCoding(p *page, fs fields) error {
	c, err := f.scalar(fs, tagCompression, 1)
	if err != nil {
		return err
	}
	switch c {
	case 0:
		c = cNone
	case cWebP:
		if err := checkWebP(p); err != nil {
			return err
		}
	case cNone, cLZW, cDeflate, cDeflOld, cPackBits, cZSTD, cLZMA:
		if p.photometric == 6 {
			if err := f.checkYCbCr(p, fs); err != nil {
				return err
			}
		}
	case cJPEG:
		if err := f.checkJPEG(p, fs); err != nil {
			return err
		}
	case cG3, cG4:
		if err := f.checkFax(p, fs, int(c)); err != nil {
			return err
		}
	default:
		if name, ok := compressionNames[int(c)]; ok {
			return unsupported("%s compression", name)
		}
		return unsupported("compression %d", c)
	}
	p.compression = int(c)
	pr, err := f.scalar(fs, tagPredictor, 1)
	if err != nil {
		return err
	}
	if c != cLZW && c != cDeflate && c != cDeflOld && c != cZSTD {
		pr = 1 // these codecs have no predictor stage
	}
	switch pr {
	case 1:
	case 2:
		if p.packed() {
			return unsupported("horizontal predictor on %d-bit samples", p.bits)
		}
	case 3:
		if !p.dtype.Float() || p.packed() {
			return formatErr("floating-point predictor on %s samples", p.dtype)
		}
	default:
		return unsupported("predictor %d", pr)
	}
	p.predictor = int(pr)
	fo, err := f.scalar(fs, tagFillOrder, 1)
	if err != nil {
		return err
	}
	switch {
	case fo == 2 && (p.compression == cNone || p.compression == cG3 || p.compression == cG4):
		p.lsbFirst = true
	case fo == 2:
		return unsupported("FillOrder 2 (reversed bits) with %s compression", compressionName(p.compression))
	}
	return nil
}

// checkJPEG checks that p, JPEG-compressed, is what image/jpeg decodes:
// 8-bit gray, or RGB or YCbCr (read as RGB), with valid JPEGTables.
func (f *file) checkJPEG(p *page, fs fields) error {
	if p.bits != 8 || p.dtype != loader.Uint8 {
		return unsupported("%d-bit JPEG", p.bits)
	}
	rgb := p.spp == 3 && (p.photometric == 2 || p.photometric == 6)
	if p.spp != 1 && !rgb || p.photometric == 3 || p.planar && p.photometric == 6 {
		return unsupported("JPEG of %d samples, photometric %d", p.spp, p.photometric)
	}
	if e, ok := fs[tagJPEGTables]; ok {
		if e.typ != tUndefined && e.typ != tByte || e.count > maxJPEGTables {
			return formatErr("bad JPEGTables")
		}
		if err := f.values(e, "JPEGTables"); err != nil {
			return err
		}
		p.jpegTables = e
	}
	return nil
}

// checkYCbCr checks that p, YCbCr without JPEG compression, stores 8-bit
// pixels whole (Y, Cb, Cr for each), which are read as RGB the way JPEG
// (JFIF) converts them. Subsampled chroma is refused.
func (f *file) checkYCbCr(p *page, fs fields) error {
	if p.bits != 8 || p.dtype != loader.Uint8 || p.planar {
		return unsupported("YCbCr colour of %d-bit samples or in planes without JPEG compression", p.bits)
	}
	h, v := uint64(2), uint64(2) // TIFF's default subsampling
	if e, ok := fs[tagYCbCrSubSamp]; ok {
		if !isUint(e) || e.count != 2 {
			return formatErr("bad YCbCrSubSampling")
		}
		if err := f.values(e, "YCbCrSubSampling values"); err != nil {
			return err
		}
		h, v = f.uintAt(e, 0), f.uintAt(e, 1)
	}
	if h != 1 || v != 1 {
		return unsupported("YCbCr colour subsampled %dx%d without JPEG compression", h, v)
	}
	p.ycc = true
	return nil
}

// checkFax checks that p, compressed with CCITT Group 3 or 4 (c), is
// bilevel and coded as golang.org/x/image/ccitt decodes it: Group 3 1-D
// (with or without fill bits), Group 4.
func (f *file) checkFax(p *page, fs fields, c int) error {
	if p.bits != 1 || p.spp != 1 {
		return formatErr("CCITT compression of %d samples of %d bits", p.spp, p.bits)
	}
	if c == cG3 {
		o, err := f.scalar(fs, tagT4Options, 0)
		if err != nil {
			return err
		}
		switch {
		case o&1 != 0:
			return unsupported("2-D CCITT Group 3 coding")
		case o&2 != 0:
			return unsupported("CCITT Group 3 uncompressed mode")
		}
		p.faxFill = o&4 != 0
		return nil
	}
	o, err := f.scalar(fs, tagT6Options, 0)
	if err != nil {
		return err
	}
	if o&2 != 0 {
		return unsupported("CCITT Group 4 uncompressed mode")
	}
	return nil
}

func (f *file) checkPalette(p *page) error {
	bits := p.bits
	if p.dtype.Signed() || p.dtype.Float() || bits > 16 {
		return unsupported("%s palette indices", p.dtype)
	}
	e := p.colormap
	if e.tag == 0 {
		return formatErr("palette image without ColorMap")
	}
	if e.typ != tShort || e.count != 3<<bits {
		return formatErr("bad ColorMap")
	}
	return f.values(e, "ColorMap")
}

// palette returns the page's colour map as RGB triples.
func (f *file) palette(p *page) [][3]uint16 {
	n := uint64(1) << p.bits
	pal := make([][3]uint16, n)
	for i := uint64(0); i < n; i++ {
		for c := uint64(0); c < 3; c++ {
			pal[i][c] = uint16(f.uintAt(p.colormap, c*n+i))
		}
	}
	return pal
}

// sameLayout reports whether q can be read with the chunk geometry of p.
func (p *page) sameLayout(q *page) bool {
	return p.width == q.width && p.height == q.height && p.spp == q.spp &&
		p.dtype == q.dtype && p.bits == q.bits && p.planar == q.planar && p.tiled == q.tiled &&
		(!p.tiled || (p.bw == q.bw && p.bh == q.bh))
}

// packed reports whether p's samples are stored in a bit width other than
// that of their type (1 to 15 bits but 8), unpacked on read.
func (p *page) packed() bool { return !p.half && p.bits != p.dtype.Size()*8 }

// converted reports whether p's stored samples are changed on read (unpacked,
// widened, their bits reversed), so that they are never copied as stored.
func (p *page) converted() bool { return p.half || p.lsbFirst || p.packed() || p.ycc }

// direct reports whether p's stored blocks are its samples as they are read
// (but for byte order).
func (p *page) direct() bool { return p.compression == cNone && !p.converted() }

// reduced reports whether the page is a reduced-resolution copy or a mask
// rather than a page of the stack.
func (p *page) reduced() bool { return p.subfile&5 != 0 }
