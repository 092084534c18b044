package nd2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"vastview/loader"
)

// image is what parse learns from a file: enough to open any of its
// series without reading the metadata again.
type image struct {
	path string

	width, height int
	comps         int   // components per pixel, interleaved
	sampleBytes   int   // bytes per component
	rowBytes      int64 // stored bytes per row
	dtype         loader.DType
	compressed    bool // frames are zlib streams after their time stamps

	frames map[int]int64 // ImageDataSeq|N! chunk offsets by N
	loops  []loop        // experiment loops, outermost first, XY included
	xy     int           // index of the multipoint loop in loops, or -1
	points []string      // its points' names

	channels []loader.Channel // one per component, or nil
	rgb      bool
	umPerPx  float64 // 0 when unknown
	zStep    float64 // µm, 0 when unknown
	periodMs float64 // time loop period, 0 when unknown
	notes    []string
}

// loop is one experiment loop: its axis ('T', 'Z', or 'P' for multipoint)
// and count.
type loop struct {
	axis  byte
	count int
}

// Experiment loop types (eType).
const (
	loopTime   = 1
	loopXY     = 2
	loopZ      = 4
	loopSpect  = 6
	loopCustom = 7
	loopNETime = 8
)

// maxSize bounds counts and lengths read from metadata.
const maxSize = 1 << 30

// parse reads the chunk map and metadata of f. Mapped bytes are read
// under f's guard.
func parse(f *loader.File) (img *image, err error) {
	defer f.Guard().Recover(&err)
	head, err := f.Bytes(0, min(f.Size(), 16))
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(head, jp2Signature[:min(len(head), len(jp2Signature))]) && len(head) >= len(jp2Signature) {
		return nil, unsupported("legacy JPEG 2000 ND2 file (written before NIS-Elements 4); convert it to the current ND2 layout in NIS-Elements")
	}
	if len(head) < 4 || binary.LittleEndian.Uint32(head) != chunkMagic {
		return nil, formatError("the file does not start with the ND2 chunk magic")
	}
	cm, err := readChunkMap(f)
	if err != nil {
		return nil, err
	}
	img = &image{frames: cm.frames, xy: -1}
	attrs, ok, err := namedChunk(f, cm, "ImageAttributesLV!")
	if err != nil {
		return nil, err
	}
	if !ok {
		if _, v2 := cm.named["ImageAttributes!"]; v2 {
			return nil, unsupported("ND2 version 2 file (XML metadata)")
		}
		return nil, formatError("the chunk map has no ImageAttributesLV! chunk")
	}
	seqCount, err := img.attributes(attrs)
	if err != nil {
		return nil, err
	}
	if b, ok, err := namedChunk(f, cm, "ImageMetadataSeqLV|0!"); err != nil {
		return nil, err
	} else if ok {
		if err := img.picture(b); err != nil {
			return nil, err
		}
	}
	if b, ok, err := namedChunk(f, cm, "ImageMetadataLV!"); err != nil {
		return nil, err
	} else if ok {
		if err := img.experiment(b); err != nil {
			return nil, err
		}
	}
	if err := img.fitLoops(seqCount); err != nil {
		return nil, err
	}
	img.channelsFor()
	return img, nil
}

// structure decodes an LV chunk and returns its level called name (the
// chunk's top level, or the chunk itself when it is not wrapped).
func structure(b []byte, chunk, name string) (*node, error) {
	root, err := decodeLV(b)
	if err != nil {
		return nil, formatError("%s: %v", chunk, err)
	}
	if n := root.get(name); root.name != name && n != nil {
		return n, nil
	}
	return root, nil
}

// attributes reads ImageAttributesLV!: the frame's geometry and sample
// type; it returns the number of frames it says the file holds.
func (img *image) attributes(b []byte) (int, error) {
	a, err := structure(b, "ImageAttributesLV!", "SLxImageAttributes")
	if err != nil {
		return 0, err
	}
	img.width, img.height = a.count("uiWidth", maxSize), a.count("uiHeight", maxSize)
	img.comps = a.count("uiComp", 1<<16)
	bpc := a.count("uiBpcInMemory", 64)
	if img.width < 1 || img.height < 1 || img.comps < 1 {
		return 0, formatError("ImageAttributesLV!: frames of %d×%d pixels of %d components", img.width, img.height, img.comps)
	}
	switch bpc {
	case 8:
		img.dtype = loader.Uint8
	case 16:
		img.dtype = loader.Uint16
	case 32:
		img.dtype = loader.Float32
	default:
		return 0, unsupported(fmt.Sprintf("%d bits per component", bpc))
	}
	img.sampleBytes = img.dtype.Size()
	packed := int64(img.width) * int64(img.comps) * int64(img.sampleBytes)
	img.rowBytes = packed
	if wb := a.count("uiWidthBytes", maxSize); wb > 0 {
		img.rowBytes = int64(wb)
	}
	if img.rowBytes < packed {
		return 0, formatError("ImageAttributesLV!: rows of %d bytes for %d pixels of %d×%d bytes", img.rowBytes, img.width, img.comps, img.sampleBytes)
	}
	switch c := a.float("eCompression", 2); c {
	case 0:
		img.compressed = true
	case 1:
		return 0, unsupported("lossy compression")
	}
	tw, th := a.count("uiTileWidth", maxSize), a.count("uiTileHeight", maxSize)
	if tw > 0 && tw != img.width || th > 0 && th != img.height {
		return 0, unsupported(fmt.Sprintf("tiled frames (%d×%d tiles)", tw, th))
	}
	if sig := a.count("uiBpcSignificant", 64); sig > 0 && sig < bpc {
		img.notes = append(img.notes, fmt.Sprintf("%d significant bits of %d", sig, bpc))
	}
	return a.count("uiSequenceCount", maxSize), nil
}

// picture reads ImageMetadataSeqLV|0!: the calibration and the planes
// (channels).
func (img *image) picture(b []byte) error {
	p, err := structure(b, "ImageMetadataSeqLV|0!", "SLxPictureMetadata")
	if err != nil {
		return err
	}
	if cal := p.float("dCalibration", 0); cal > 0 && p.float("bCalibrated", 1) != 0 {
		img.umPerPx = cal
	}
	planes := p.get("sPicturePlanes")
	list := planes.get("sPlaneNew")
	if list == nil {
		list = planes.get("sPlane")
	}
	if list == nil {
		return nil
	}
	for _, pl := range list.kids {
		if len(pl.kids) == 0 {
			continue
		}
		ch := loader.Channel{Label: strings.TrimSpace(pl.text("sDescription"))}
		if c, ok := pl.get("uiColor").number(); ok && c > 0 && c <= math.MaxUint32 {
			v := uint32(c)
			ch.Color = [3]uint8{uint8(v), uint8(v >> 8), uint8(v >> 16)}
			ch.HasColor = true
		}
		n := max(1, pl.count("uiCompCount", 1<<16))
		for range n {
			img.channels = append(img.channels, ch)
		}
		if n == 3 && len(list.kids) == 1 {
			img.rgb = true
		}
	}
	return nil
}

// channelsFor settles the channels against the components: one entry per
// component, none for a colour camera's picture.
func (img *image) channelsFor() {
	if len(img.channels) != img.comps || img.rgb && img.comps != 3 {
		if len(img.channels) > 0 {
			img.notes = append(img.notes, fmt.Sprintf("%d channels described for %d components; their names are not shown", len(img.channels), img.comps))
		}
		img.channels, img.rgb = nil, false
	}
	if img.rgb {
		img.channels = nil
	}
}

// experiment reads ImageMetadataLV!: the loops, outermost first.
func (img *image) experiment(b []byte) error {
	e, err := structure(b, "ImageMetadataLV!", "SLxExperiment")
	if err != nil {
		return err
	}
	for depth := 0; e != nil && depth < maxDepth; depth++ {
		typ := e.float("eType", 0)
		pars := e.get("uLoopPars")
		if pars == nil {
			break
		}
		if len(pars.kids) == 1 && pars.kids[0].name == "" {
			pars = pars.kids[0]
		}
		var l loop
		switch typ {
		case loopTime:
			l = loop{'T', pars.count("uiCount", maxSize)}
			if p := pars.float("dPeriod", 0); p > 0 && img.periodMs == 0 {
				img.periodMs = p
			}
		case loopNETime:
			l = loop{'T', img.netime(pars)}
		case loopZ:
			l = loop{'Z', pars.count("uiCount", maxSize)}
			step := math.Abs(pars.float("dZStep", 0))
			if step == 0 && l.count > 1 {
				step = math.Abs(pars.float("dZHigh", 0)-pars.float("dZLow", 0)) / float64(l.count-1)
			}
			img.zStep = step
		case loopXY:
			l = loop{'P', img.multipoint(e, pars)}
		case loopSpect:
			l.count = -2 // a spectral loop: its planes are components
		case loopCustom:
			l = loop{'T', pars.count("uiCount", maxSize)}
			img.notes = append(img.notes, "a custom experiment loop is shown as T")
		default:
			l.count = -1
		}
		if l.count == 0 || l.count == -1 {
			break
		}
		if l.count > 0 {
			img.loops = append(img.loops, l)
		}
		e = nextLoop(e)
	}
	return nil
}

// nextLoop is the experiment loop nested in e (the first of its
// ppNextLevelEx), or nil.
func nextLoop(e *node) *node {
	next := e.get("ppNextLevelEx")
	if next == nil || len(next.kids) == 0 {
		return nil
	}
	n := next.kids[0]
	if s := n.get("SLxExperiment"); s != nil {
		return s
	}
	return n
}

// netime counts the frames of an NETimeLoop: those of its valid periods.
func (img *image) netime(pars *node) int {
	periods := pars.get("pPeriod")
	if periods == nil {
		return pars.count("uiCount", maxSize)
	}
	valid := flags(pars.get("pPeriodValid"))
	total := 0
	for i, p := range periods.kids {
		if valid != nil && (i >= len(valid) || !valid[i]) {
			continue
		}
		c := p.count("uiCount", maxSize)
		if c <= 0 {
			continue
		}
		if per := p.float("dPeriod", 0); per > 0 && img.periodMs == 0 {
			img.periodMs = per
		}
		total += c
		if total > maxSize {
			return -1
		}
	}
	return total
}

// multipoint counts the valid points of an XYPosLoop and keeps their
// names.
func (img *image) multipoint(e, pars *node) int {
	valid := flags(e.get("pItemValid"))
	points := pars.get("Points")
	if points == nil {
		return pars.count("uiCount", maxSize)
	}
	img.points = img.points[:0]
	for i, p := range points.kids {
		if valid != nil && (i >= len(valid) || !valid[i]) {
			continue
		}
		name := p.text("dPosName")
		if name == "" {
			name = p.text("pPosName")
		}
		img.points = append(img.points, strings.TrimSpace(name))
	}
	img.xy = len(img.loops)
	return len(img.points)
}

// flags reads a list of booleans, stored as bytes or as a level of
// numbers; nil when n is nil.
func flags(n *node) []bool {
	if n == nil {
		return nil
	}
	var out []bool
	if n.kind == lvBytes {
		for _, b := range n.raw {
			out = append(out, b != 0)
		}
		return out
	}
	for _, k := range n.kids {
		v, _ := k.number()
		out = append(out, v != 0)
	}
	return out
}

// fitLoops checks the loops against the frames the chunk map holds: a
// file without loops holds seqCount frames in time; an acquisition
// stopped early holds fewer frames of its outermost loop than planned.
func (img *image) fitLoops(seqCount int) error {
	if img.xy >= 0 && (img.xy >= len(img.loops) || img.loops[img.xy].axis != 'P') {
		img.xy = -1
		img.points = nil
	}
	if len(img.loops) == 0 && seqCount > 1 {
		img.loops = []loop{{'T', seqCount}}
	}
	total := 1
	for _, l := range img.loops {
		if l.count > maxSize/total {
			return formatError("its experiment loops %v describe too many frames", img.loopCounts())
		}
		total *= l.count
	}
	have := 0
	for have < total {
		if _, ok := img.frames[have]; !ok {
			break
		}
		have++
	}
	if have == 0 {
		return formatError("the chunk map lists no ImageDataSeq|0! frame")
	}
	if have < total {
		inner := total / img.loops[0].count
		if have/inner == 0 {
			return formatError("it holds %d of the %d frames its experiment loops %v describe", have, total, img.loopCounts())
		}
		img.notes = append(img.notes, fmt.Sprintf("the acquisition stopped early: %d of %d frames", have/inner*inner, total))
		img.loops[0].count = have / inner
	}
	// Loops on the same axis must be adjacent; they are then one.
	var merged []loop
	for i, l := range img.loops {
		if n := len(merged); n > 0 && merged[n-1].axis == l.axis {
			merged[n-1].count *= l.count
			if l.axis == 'P' {
				return unsupported("nested multipoint loops")
			}
			continue
		}
		for _, m := range merged {
			if m.axis == l.axis {
				return unsupported(fmt.Sprintf("two %c loops apart in the experiment", l.axis))
			}
		}
		if i == img.xy {
			img.xy = len(merged)
		}
		merged = append(merged, l)
	}
	img.loops = merged
	if img.xy >= 0 && len(img.points) != img.loops[img.xy].count {
		img.points = nil
	}
	return nil
}

func (img *image) loopCounts() []int {
	c := make([]int, len(img.loops))
	for i, l := range img.loops {
		c[i] = l.count
	}
	return c
}
