// Package dicom reads DICOM images: one file, a folder of files, a
// DICOMDIR, or one file of a series (which opens the whole series of its
// folder). It registers the format "dicom" with the loader.
//
// Files are grouped into series by SeriesInstanceUID (0020,000E) and by
// image size; a folder holding several lists them in Meta.Series, named
// from SeriesDescription and SeriesNumber ("Chest (3)"), and opens the
// largest (the first of the largest) unless a selector names another
// ("folder#1", "folder#Chest (3)"). The slices of a series are sorted along
// the slice normal (the cross product of the two direction cosines of
// ImageOrientationPatient) by ImagePositionPatient projected on it,
// ascending; without positions, by InstanceNumber. Z spacing is the
// distance between the first and last positions over the number of steps
// (SliceThickness only when there are no positions); PixelSpacing gives
// the Y and X spacing, in millimetres. Meta.Anatomy maps sample indices to
// LPS patient coordinates: X along the row direction cosine, Y along the
// column one, Z from the first plane's ImagePositionPatient to the last's,
// the origin the first plane's position. An enhanced (multi-frame) object's
// frames are its Z axis in stored order, spaced by the per-frame
// functional groups' PlanePositionSequence. When the frames (or a series'
// slices) repeat a set of positions (an fMRI run in one object, a
// perfusion series), each position held by as many, they are time points
// (TZYX: planes sorted along the normal; frames in stored order, slices in
// InstanceNumber order, as T), spaced by RepetitionTime in milliseconds.
// Slices of one series that
// differ in size or orientation are separate images.
//
// Samples are the stored values (8, 16 or 32 bits, signed as
// PixelRepresentation says, the bits above BitsStored kept as stored, as
// pydicom 2.3 returns them); RescaleSlope and RescaleIntercept are
// Meta.ValueScale, in the unit RescaleType names (Meta.ValueUnit; "HU" for
// CT), Modality is Meta.Modality, WindowCenter/Width the channel's default window
// (converted to stored values). Three samples per pixel are a C axis of
// red, green and blue (Meta.RGB). MONOCHROME1 is noted and kept as stored.
//
// Transfer syntaxes: implicit and explicit VR little endian, explicit VR
// big endian, deflated explicit VR little endian, RLE lossless, JPEG
// baseline (8-bit; YBR_FULL and YBR_FULL_422 converted to RGB as
// libjpeg's upsampling and pydicom's convert_color_space do) and JPEG
// lossless (process 14, any selection value, point transform, restart
// intervals); JPEG-LS, JPEG 2000 and the video syntaxes are refused by
// name. Each encapsulated frame is found through the basic offset table,
// one fragment per frame, or the fragments that start with a JPEG SOI.
//
// Opening reads each file's header up to its pixel data (a few files at a
// time in parallel) and no samples; each chunk, one slice, is read from its
// file when asked for.
package dicom

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"vastview/loader"
)

// format is DICOM as the registry knows it: a file with the "DICM" magic
// at byte 128, or a .dcm file starting with a plausible group 0002 or 0008
// element; a folder holding a DICOMDIR, or DICOM files (see isSeries).
var format = loader.Format{
	Name: "dicom", Titles: []string{"DICOM"}, Open: Open, Exts: dicomExts,
	Magic: []loader.Magic{{Offset: 128, Bytes: "DICM"}},
	Sniff: func(path string, head []byte) bool {
		return loader.HasExt(path, dicomExts...) && plausibleStart(head)
	},
	Markers: []string{"DICOMDIR"},
	Folder:  isSeries,
}

func init() { loader.Register(format) }

var errTruncated = loader.ErrTruncated

// formatError is a loader.FormatError of this format.
func formatError(format string, args ...any) error {
	return loader.Errorf("dicom", format, args...)
}

// unsupported is a loader.UnsupportedError of this format.
func unsupported(format string, args ...any) error {
	return &loader.UnsupportedError{Format: "dicom", Feature: fmt.Sprintf(format, args...)}
}

// dicomExts are the names a DICOM file without a preamble may have.
var dicomExts = []string{".dcm", ".dicom", ".dic", ".ima"}

// Match reports whether path is a DICOM file (the "DICM" magic at byte 128,
// or a .dcm file starting with a plausible group 0002 or 0008 element), or
// a folder holding a DICOMDIR or DICOM files (more of them among its first
// files than other images). It is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// isSeries reports whether the folder holds DICOM files: more of them among
// its first files than frames of other images (loader.IsFrame).
func isSeries(path string) bool {
	d, err := os.Open(path)
	if err != nil {
		return false
	}
	defer d.Close()
	ents, _ := d.ReadDir(64)
	dicom, images, tried := 0, 0, 0
	for _, e := range ents {
		name := e.Name()
		if name == "" || name[0] == '.' || !e.Type().IsRegular() || tried == 16 {
			continue
		}
		if loader.IsFrame(name) {
			images++
			continue
		}
		tried++
		if isDICOMFile(filepath.Join(path, name)) {
			dicom++
		}
	}
	return dicom > 0 && dicom >= images
}

// isDICOMFile reports whether the file at path starts as a DICOM file.
func isDICOMFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [136]byte
	n, _ := io.ReadFull(f, b[:])
	return hasPreamble(b[:n]) || plausibleStart(b[:n])
}

// plausibleStart reports whether b starts with an element of group 0002
// or 0008 (a file without its preamble), explicit or implicit VR.
func plausibleStart(b []byte) bool {
	if len(b) < 8 || b[1] != 0 || b[3] != 0 || (b[0] != 2 && b[0] != 8) {
		return false
	}
	vr := b[4:6]
	if vr[0] >= 'A' && vr[0] <= 'Z' && vr[1] >= 'A' && vr[1] <= 'Z' {
		return true
	}
	// Implicit VR: a small length.
	l := uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24
	return l < 1024
}

// Open opens a DICOM file (with the rest of its series from its folder),
// a folder of DICOM files, or a DICOMDIR. Errors do not repeat the path.
func Open(ctx context.Context, path string) (loader.Source, error) {
	path = filepath.Clean(path)
	st, err := os.Stat(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	var files []string
	dir, want := path, ""
	switch {
	case st.IsDir():
		if files, err = listFolder(path); err != nil {
			return nil, err
		}
	case strings.EqualFold(filepath.Base(path), "DICOMDIR") || isDICOMDIR(path):
		dir = filepath.Dir(path)
		if files, err = readDICOMDIR(path); err != nil {
			return nil, err
		}
	default:
		// One file: its series from its folder.
		dir, want = filepath.Dir(path), path
		h, err := scanFile(path, true)
		if err != nil {
			return nil, err
		}
		if h.isDir {
			if files, err = readDICOMDIR(path); err != nil {
				return nil, err
			}
			want = ""
			break
		}
		others, err := listFolder(dir)
		if err != nil || !slices.Contains(others, path) {
			others = []string{path}
		}
		files = others
	}
	files, note, err := members(ctx, dir, files, want)
	if err != nil {
		return nil, err
	}
	cat, err := scan(ctx, dir, files, want)
	if err != nil {
		return nil, err
	}
	if note != "" {
		cat.notes = append(cat.notes, note)
	}
	if !st.IsDir() {
		cat.opened = path
	}
	return cat.open(cat.chosen)
}

// members checks with loader.Members the files of dir that were not
// named to Open (want), links in the folder and the names of a DICOMDIR
// (which may lead elsewhere with ".."): under loader.Confine one outside
// dir is an error, otherwise a note.
func members(ctx context.Context, dir string, files []string, want string) ([]string, string, error) {
	var idx []int
	var names []string
	for i, f := range files {
		if f == want {
			continue
		}
		if r, err := filepath.Rel(dir, f); err == nil {
			f = r
		}
		idx, names = append(idx, i), append(names, f)
	}
	checked, note, err := loader.Members(ctx, dir, "the file", names)
	if err != nil {
		return nil, "", err
	}
	out := slices.Clone(files)
	for k, i := range idx {
		out[i] = checked[k]
	}
	return out, note, nil
}

// listFolder lists the files of dir that may be DICOM: regular, not
// hidden, not DICOMDIR, not of another image format, in natural order.
func listFolder(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, "DICOMDIR")); err == nil {
		if files, err := readDICOMDIR(filepath.Join(dir, "DICOMDIR")); err == nil && len(files) > 0 {
			return files, nil
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if n == "" || n[0] == '.' || strings.EqualFold(n, "DICOMDIR") || loader.IsFrame(n) {
			continue
		}
		if e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0 {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, loader.NaturalCompare)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out, nil
}

// slice is what one file's header says about its image.
type slice struct {
	path, name string
	size       int64

	syntax   string
	implicit bool
	bigEnd   bool
	deflated bool

	rows, cols, spp, planar   int
	bitsAlloc, bitsStored     int
	signed                    bool
	photometric               string
	frames                    int
	pixelAt                   int64
	pixelLen                  uint32
	encapsulated              bool
	seriesUID, desc, modality string
	number, instance          int
	hasNumber                 bool

	pos, orient       []float64
	spacing           []float64
	thickness         float64
	slope, intercept  float64
	rescaleType       string
	tr                float64 // RepetitionTime, ms
	wc, ww            float64
	hasWindow         bool
	framePos          [][]float64 // per frame, when the functional groups give them
	perFrameRescale   bool
	isDir             bool
	noPixels          bool
	floatPixels       bool
	unsupportedSyntax string
}

// isDICOMDIR reports whether the file at path is a DICOMDIR by its
// media storage SOP class.
func isDICOMDIR(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	return hasPreamble(b[:n]) && strings.Contains(string(b[:n]), "1.2.840.10008.1.3.10")
}

// scanFile reads the header of the file at path; unless sure, a file
// that does not start as DICOM files do is skipped (nil, nil).
func scanFile(path string, sure bool) (*slice, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, loader.StripPath(err)
	}
	if !st.Mode().IsRegular() {
		return nil, formatError("not a regular file")
	}
	if !sure {
		var b [136]byte
		n, _ := f.ReadAt(b[:], 0)
		if !hasPreamble(b[:n]) && !plausibleStart(b[:n]) {
			return nil, nil
		}
	}
	h, err := readHeader(f, st.Size())
	if err != nil {
		if _, ok := err.(*loader.FormatError); ok {
			return nil, err
		}
		return nil, formatError("%v", err)
	}
	return describe(path, st.Size(), h)
}

// describe turns a parsed header into a slice, checking what it can.
func describe(path string, size int64, h *fileHeader) (*slice, error) {
	ds := h.ds
	o := h.order
	s := &slice{path: path, name: filepath.Base(path), size: size, syntax: h.syntax, implicit: h.implicit,
		bigEnd: h.syntax == tsExplicitBE, deflated: h.deflated}
	class := h.meta.str(tagMediaSOPClass)
	if class == "" {
		class = ds.str(tagSOPClass)
	}
	if class == "1.2.840.10008.1.3.10" || ds[tagDirRecords] != nil {
		s.isDir = true
		return s, nil
	}
	if name, ok := unsupportedSyntaxes[h.syntax]; ok {
		s.unsupportedSyntax = name + " (" + h.syntax + ")"
	} else {
		switch h.syntax {
		case tsImplicitLE, tsExplicitLE, tsExplicitBE, tsDeflated, tsRLE, tsJPEGBase, tsJPEGLL14, tsJPEGLLSV1:
		default:
			s.unsupportedSyntax = "transfer syntax " + h.syntax
		}
	}
	s.seriesUID = ds.str(tagSeriesUID)
	s.desc = ds.str(tagSeriesDesc)
	s.modality = ds.str(tagModality)
	if v := ds.floats(tagSeriesNumber); len(v) > 0 {
		s.number, s.hasNumber = int(v[0]), true
	}
	s.instance = int(ds.float(tagInstanceNumber, 0))
	s.rows = ds.us(tagRows, o, 0)
	s.cols = ds.us(tagColumns, o, 0)
	s.spp = ds.us(tagSamples, o, 1)
	s.planar = ds.us(tagPlanar, o, 0)
	s.bitsAlloc = ds.us(tagBitsAllocated, o, 0)
	s.bitsStored = ds.us(tagBitsStored, o, s.bitsAlloc)
	s.signed = ds.us(tagPixelRep, o, 0) == 1
	s.photometric = ds.str(tagPhotometric)
	s.frames = int(ds.float(tagFrames, 1))
	s.pos = ds.floats(tagPosition)
	s.orient = ds.floats(tagOrientation)
	s.spacing = ds.floats(tagPixelSpacing)
	s.thickness = ds.float(tagSliceThickness, 0)
	s.slope = ds.float(tagRescaleSlope, 1)
	s.intercept = ds.float(tagRescaleIntercept, 0)
	s.rescaleType = ds.str(tagRescaleType)
	s.tr = ds.float(tagRepetitionTime, 0)
	if wc, ww := ds.floats(tagWindowCenter), ds.floats(tagWindowWidth); len(wc) > 0 && len(ww) > 0 && ww[0] > 0 {
		s.wc, s.ww, s.hasWindow = wc[0], ww[0], true
	}
	// Enhanced objects: the shared and per-frame functional groups.
	shared := ds.item(tagSharedGroups)
	var perFrame []dataset
	if e := ds[tagPerFrameGroups]; e != nil {
		perFrame = e.items
	}
	first := dataset(nil)
	if len(perFrame) > 0 {
		first = perFrame[0]
	}
	for gi, g := range []dataset{first, shared} {
		if g == nil {
			continue
		}
		if it := g.item(tagPlaneOrient); it != nil && s.orient == nil {
			s.orient = it.floats(tagOrientation)
		}
		if it := g.item(tagMRTiming); it != nil && s.tr == 0 {
			s.tr = it.float(tagRepetitionTime, 0)
		}
		if it := g.item(tagPixelMeasures); it != nil {
			if s.spacing == nil {
				s.spacing = it.floats(tagPixelSpacing)
			}
			if s.thickness == 0 {
				s.thickness = it.float(tagSliceThickness, 0)
			}
		}
		if it := g.item(tagValueTransform); it != nil && ds[tagRescaleSlope] == nil {
			s.slope = it.float(tagRescaleSlope, 1)
			s.intercept = it.float(tagRescaleIntercept, 0)
			s.rescaleType = it.str(tagRescaleType)
			s.perFrameRescale = gi == 0 && len(perFrame) > 1
		}
		if it := g.item(tagFrameVOI); it != nil && !s.hasWindow {
			if wc, ww := it.floats(tagWindowCenter), it.floats(tagWindowWidth); len(wc) > 0 && len(ww) > 0 && ww[0] > 0 {
				s.wc, s.ww, s.hasWindow = wc[0], ww[0], true
			}
		}
	}
	if s.frames > 1 && len(perFrame) == s.frames {
		s.framePos = make([][]float64, s.frames)
		for i, g := range perFrame {
			if it := g.item(tagPlanePosition); it != nil {
				if p := it.floats(tagPosition); len(p) == 3 {
					s.framePos[i] = p
					continue
				}
			}
			s.framePos = nil
			break
		}
	}
	if len(s.pos) != 3 {
		s.pos = nil
	}
	if len(s.orient) != 6 {
		s.orient = nil
	}
	s.doseFrames(ds)
	if len(s.spacing) < 2 || s.spacing[0] <= 0 || s.spacing[1] <= 0 {
		s.spacing = nil
	}
	if s.slope == 0 {
		s.slope = 1
	}
	pe := ds[tagPixelData]
	switch {
	case pe != nil:
	case ds[tagFloatPixelData] != nil || ds[tagDoublePixelData] != nil:
		s.floatPixels = true
		return s, nil
	default:
		s.noPixels = true
		return s, nil
	}
	s.pixelAt, s.pixelLen = pe.offset, pe.length
	s.encapsulated = pe.length == undefinedLength
	return s, s.check()
}

// check refuses an image this reader cannot read, naming why.
func (s *slice) check() error {
	if s.unsupportedSyntax != "" {
		return unsupported("%s", s.unsupportedSyntax)
	}
	if s.rows <= 0 || s.cols <= 0 {
		return formatError("image of %d×%d pixels", s.cols, s.rows)
	}
	if s.frames < 1 || s.frames > 1<<20 {
		return formatError("NumberOfFrames %d", s.frames)
	}
	switch s.spp {
	case 1, 3:
	default:
		return unsupported("%d samples per pixel", s.spp)
	}
	switch s.bitsAlloc {
	case 8, 16, 32:
	default:
		return unsupported("BitsAllocated %d", s.bitsAlloc)
	}
	if s.bitsStored < 1 || s.bitsStored > s.bitsAlloc {
		return formatError("BitsStored %d of BitsAllocated %d", s.bitsStored, s.bitsAlloc)
	}
	if s.spp == 3 && s.bitsAlloc != 8 && s.syntax == tsJPEGBase {
		return unsupported("JPEG baseline of %d bits", s.bitsAlloc)
	}
	if s.encapsulated {
		switch s.syntax {
		case tsRLE, tsJPEGBase, tsJPEGLL14, tsJPEGLLSV1:
		default:
			return formatError("pixel data of undefined length in an uncompressed syntax")
		}
		if s.deflated {
			return formatError("encapsulated pixel data in a deflated file")
		}
		return nil
	}
	switch s.syntax {
	case tsRLE, tsJPEGBase, tsJPEGLL14, tsJPEGLLSV1:
		return formatError("compressed syntax %s with pixel data of defined length", s.syntax)
	}
	need := int64(s.frames) * s.frameBytes()
	if int64(s.pixelLen) < need {
		return formatError("pixel data of %d bytes for %d frames of %d×%d×%d samples of %d bits (%d bytes): %v",
			s.pixelLen, s.frames, s.cols, s.rows, s.spp, s.bitsAlloc, need, errTruncated)
	}
	if !s.deflated && s.pixelAt+need > s.size {
		return formatError("pixel data of %d bytes at byte %d exceeds the file of %d bytes: %v", need, s.pixelAt, s.size, errTruncated)
	}
	return nil
}

// frameBytes is the size of one native frame.
func (s *slice) frameBytes() int64 {
	return int64(s.rows) * int64(s.cols) * int64(s.spp) * int64(s.bitsAlloc/8)
}

// dtype is the sample type.
func (s *slice) dtype() loader.DType { return loader.IntDType(s.bitsAlloc, s.signed) }

// doseFrames reads what an RT Dose object says of its frames and values:
// GridFrameOffsetVector places frame k at ImagePositionPatient plus
// (offset[k] − offset[0]) along the slice normal (the offsets are relative
// when the first is 0, else absolute, the same positions either way);
// DoseGridScaling scales the stored values to DoseUnits ("GY").
func (s *slice) doseFrames(ds dataset) {
	if off := ds.floats(tagGridFrameOffsets); s.frames > 1 && len(off) == s.frames && s.framePos == nil && s.pos != nil && s.orient != nil {
		r, c := s.orient[:3], s.orient[3:]
		n := []float64{r[1]*c[2] - r[2]*c[1], r[2]*c[0] - r[0]*c[2], r[0]*c[1] - r[1]*c[0]}
		s.framePos = make([][]float64, s.frames)
		for k, o := range off {
			d := o - off[0]
			s.framePos[k] = []float64{s.pos[0] + d*n[0], s.pos[1] + d*n[1], s.pos[2] + d*n[2]}
		}
	}
	if g := ds.float(tagDoseGridScaling, 0); g > 0 && !math.IsInf(g, 0) && ds[tagRescaleSlope] == nil {
		s.slope, s.intercept = g, 0
		if u := strings.TrimSpace(ds.str(tagDoseUnits)); u != "" {
			s.rescaleType = u
		}
	}
}

// valueUnit names the unit of the rescaled values: RescaleType when it
// names one ("US" is unspecified), else "HU" for CT, whose rescaled values
// are Hounsfield units.
func (s *slice) valueUnit() string {
	if t := strings.TrimSpace(s.rescaleType); t != "" && t != "US" {
		return t
	}
	if s.modality == "CT" {
		return "HU"
	}
	return ""
}

// geometryKey groups slices that can be one volume: of one series, size,
// sample type and orientation (a localiser's three planes share a series
// but are three images).
func (s *slice) geometryKey() string {
	o := ""
	for _, v := range s.orient {
		r := math.Round(v*1e4) / 1e4
		if r == 0 {
			r = 0 // not -0
		}
		o += strconv.FormatFloat(r, 'g', -1, 64) + ","
	}
	return fmt.Sprintf("%s|%dx%dx%d|%d|%v|%v|%s", s.seriesUID, s.cols, s.rows, s.spp, s.bitsAlloc, s.signed, s.frames > 1, o)
}

// scan reads the headers of files (a few at a time) and groups them into
// series; want, when not "", is the file whose series is chosen.
func scan(ctx context.Context, dir string, files []string, want string) (*catalog, error) {
	if len(files) == 0 {
		return nil, formatError("no files in the folder")
	}
	slicesOut := make([]*slice, len(files))
	errs := make([]error, len(files))
	workers := min(8, max(2, runtime.GOMAXPROCS(0)*2), len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				slicesOut[i], errs[i] = scanFile(files[i], files[i] == want)
			}
		}()
	}
	var cerr error
	for i := range files {
		if cerr = ctx.Err(); cerr != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if cerr != nil {
		return nil, cerr
	}
	cat := &catalog{dir: dir}
	var firstErr error
	var firstErrName string
	bad := 0
	groups := map[string]*volume{}
	for i, s := range slicesOut {
		name, _ := filepath.Rel(dir, files[i])
		if name == "" || strings.HasPrefix(name, "..") {
			name = filepath.Base(files[i])
		}
		if files[i] == want && errs[i] != nil {
			return nil, errs[i]
		}
		if errs[i] != nil {
			bad++
			if firstErr == nil {
				firstErr, firstErrName = errs[i], name
			}
			continue
		}
		if s == nil || s.isDir || s.noPixels {
			continue
		}
		if s.floatPixels {
			if firstErr == nil {
				firstErr, firstErrName = unsupported("float pixel data"), name
			}
			bad++
			continue
		}
		s.name = name
		key := s.geometryKey()
		if s.frames > 1 {
			key += "|" + files[i]
		}
		v := groups[key]
		if v == nil {
			v = &volume{}
			groups[key] = v
			cat.vols = append(cat.vols, v)
		}
		v.slices = append(v.slices, s)
		if files[i] == want {
			v.wanted = true
		}
	}
	if len(cat.vols) == 0 {
		if firstErr != nil {
			if len(files) == 1 {
				return nil, firstErr
			}
			return nil, fmt.Errorf("%s: %w", firstErrName, firstErr)
		}
		return nil, formatError("no DICOM images among %d files", len(files))
	}
	if bad > 0 {
		what := "1 file"
		if bad > 1 {
			what = fmt.Sprintf("%d files", bad)
		}
		cat.notes = append(cat.notes, fmt.Sprintf("%s not read (%s: %v)", what, firstErrName, firstErr))
	}
	for _, v := range cat.vols {
		v.arrange()
	}
	sort.SliceStable(cat.vols, func(i, j int) bool {
		a, b := cat.vols[i].slices[0], cat.vols[j].slices[0]
		if a.hasNumber != b.hasNumber {
			return a.hasNumber
		}
		if a.number != b.number {
			return a.number < b.number
		}
		return a.seriesUID < b.seriesUID
	})
	cat.chosen = 0
	best := int64(-1)
	for i, v := range cat.vols {
		if v.wanted {
			cat.chosen = i
			break
		}
		if n := int64(v.depth()) * int64(v.slices[0].rows) * int64(v.slices[0].cols); n > best {
			best, cat.chosen = n, i
		}
	}
	cat.names()
	return cat, nil
}

// catalog is every series found.
type catalog struct {
	dir    string
	vols   []*volume
	chosen int
	notes  []string
	list   []loader.Series
	opened string // the file opened ("" for a folder): its other files are Meta.DataFiles
}

// volume is one series: its slices in order (or one multi-frame file).
type volume struct {
	slices  []*slice
	wanted  bool
	name    string
	zs      []float64 // position of each plane along the normal, when known
	notes   []string
	normal  []float64
	ordered bool // by positions
	// times is the number of time points of a series (or a multi-frame
	// object) whose planes repeat their positions (1 otherwise);
	// frameAt[t*depth+z] is then the slice (the frame) of time point t at
	// plane z.
	times   int
	frameAt []int
}

// depth is the number of planes (of one time point).
func (v *volume) depth() int {
	if v.frameAt != nil {
		return len(v.frameAt) / v.times
	}
	if len(v.slices) == 1 {
		return v.slices[0].frames
	}
	return len(v.slices)
}

// plane returns the file and frame of plane z of time point 0.
func (v *volume) plane(z int) (*slice, int) { return v.planeAt(0, z) }

// planeAt returns the file and frame of plane z of time point t.
func (v *volume) planeAt(t, z int) (*slice, int) {
	if v.frameAt != nil && len(v.slices) == 1 {
		return v.slices[0], v.frameAt[t*v.depth()+z]
	}
	if v.frameAt != nil {
		return v.slices[v.frameAt[t*v.depth()+z]], 0
	}
	if len(v.slices) == 1 {
		return v.slices[0], z
	}
	return v.slices[z], 0
}

// splitTimes makes planes (a multi-frame object's frames, or a series'
// slices sorted along the normal, then by InstanceNumber) that lie at k
// distinct positions along the normal (zs, one per plane), each position
// held by the same number of planes, a series of time points: planes
// sorted along the normal, and at each its planes in the given order as
// time points 0, 1, .... It reports whether it did.
func (v *volume) splitTimes(zs []float64) bool {
	var levels []float64 // the distinct positions, ascending
	sorted := slices.Clone(zs)
	slices.Sort(sorted)
	for _, z := range sorted {
		if len(levels) == 0 || z-levels[len(levels)-1] > 1e-4 {
			levels = append(levels, z)
		}
	}
	k, n := len(levels), len(zs)
	if k == n || n%k != 0 {
		return false
	}
	t := n / k
	at := make([][]int, k)
	for f, z := range zs {
		i, _ := slices.BinarySearchFunc(levels, z, func(l, z float64) int {
			switch {
			case l < z-1e-4:
				return -1
			case l > z+1e-4:
				return 1
			}
			return 0
		})
		at[i] = append(at[i], f)
	}
	v.frameAt = make([]int, n)
	for i, fs := range at {
		if len(fs) != t {
			v.frameAt = nil
			return false
		}
		for ti, f := range fs {
			v.frameAt[ti*k+i] = f
		}
	}
	v.times, v.zs, v.ordered = t, levels, true
	return true
}

// arrange sorts the slices along the slice normal.
func (v *volume) arrange() {
	s0 := v.slices[0]
	if s0.orient != nil {
		r, c := s0.orient[:3], s0.orient[3:]
		v.normal = []float64{r[1]*c[2] - r[2]*c[1], r[2]*c[0] - r[0]*c[2], r[0]*c[1] - r[1]*c[0]}
	}
	dot := func(p []float64) float64 { return p[0]*v.normal[0] + p[1]*v.normal[1] + p[2]*v.normal[2] }
	if len(v.slices) == 1 {
		if s0.framePos != nil && v.normal != nil {
			v.zs = make([]float64, len(s0.framePos))
			for i, p := range s0.framePos {
				v.zs[i] = dot(p)
			}
			if s0.spp == 1 && v.splitTimes(v.zs) {
				v.notes = append(v.notes, fmt.Sprintf("%d frames at %d positions: %d time points", s0.frames, v.depth(), v.times))
			}
		} else if s0.pos != nil && v.normal != nil {
			v.zs = []float64{dot(s0.pos)}
		}
		return
	}
	all := v.normal != nil
	for _, s := range v.slices {
		all = all && s.pos != nil
	}
	if all {
		type kz struct {
			s *slice
			z float64
		}
		ks := make([]kz, len(v.slices))
		for i, s := range v.slices {
			ks[i] = kz{s, dot(s.pos)}
		}
		sort.SliceStable(ks, func(i, j int) bool {
			if ks[i].z != ks[j].z {
				return ks[i].z < ks[j].z
			}
			return ks[i].s.instance < ks[j].s.instance
		})
		v.zs = make([]float64, len(ks))
		for i, k := range ks {
			v.slices[i], v.zs[i] = k.s, k.z
		}
		v.ordered = true
		if v.slices[0].frames == 1 && v.slices[0].spp == 1 && v.splitTimes(v.zs) {
			v.notes = append(v.notes, fmt.Sprintf("%d slices at %d positions: %d time points", len(v.slices), v.depth(), v.times))
		}
	} else {
		sort.SliceStable(v.slices, func(i, j int) bool { return v.slices[i].instance < v.slices[j].instance })
		v.notes = append(v.notes, "slices without ImagePositionPatient/ImageOrientationPatient: sorted by InstanceNumber")
	}
}

// zSpacing is the distance between planes, and whether it is known.
func (v *volume) zSpacing() (float64, bool) {
	if n := len(v.zs); n > 1 {
		d := (v.zs[n-1] - v.zs[0]) / float64(n-1)
		if d < 0 {
			d = -d
		}
		if d > 0 {
			return d, true
		}
	}
	if t := v.slices[0].thickness; t > 0 {
		return t, true
	}
	return 1, false
}

// names names every series, uniquely, and lists them.
func (c *catalog) names() {
	seen := map[string]int{}
	var metas []*loader.Meta
	var names []string
	for _, v := range c.vols {
		s := v.slices[0]
		n := s.desc
		switch {
		case n != "" && s.hasNumber:
			n = fmt.Sprintf("%s (%d)", n, s.number)
		case n == "" && s.hasNumber:
			n = fmt.Sprintf("series %d", s.number)
		case n == "":
			n = "series"
		}
		n = strings.ReplaceAll(n, "#", "_")
		seen[n]++
		if seen[n] > 1 {
			n += " [" + strconv.Itoa(seen[n]) + "]"
		}
		v.name = n
		names = append(names, n)
		metas = append(metas, v.meta())
	}
	if len(c.vols) > 1 {
		c.list = loader.SeriesList(names, metas)
	}
}

// meta describes volume v.
func (v *volume) meta() *loader.Meta {
	s := v.slices[0]
	n := v.depth()
	dt := s.dtype()
	var axes string
	var shape []int
	switch {
	case v.times > 1:
		axes, shape = "TZYX", []int{v.times, n, s.rows, s.cols}
	case n > 1 && s.spp == 3:
		axes, shape = "ZCYX", []int{n, 3, s.rows, s.cols}
	case n > 1:
		axes, shape = "ZYX", []int{n, s.rows, s.cols}
	case s.spp == 3:
		axes, shape = "CYX", []int{3, s.rows, s.cols}
	default:
		axes, shape = "YX", []int{s.rows, s.cols}
	}
	chunk := append([]int(nil), shape...)
	for i := range len(axes) - 2 {
		if axes[i] == 'T' || axes[i] == 'Z' {
			chunk[i] = 1
		}
	}
	spacing := make([]float64, len(axes))
	units := make([]string, len(axes))
	for i := range spacing {
		spacing[i] = 1
	}
	trans := make([]float64, len(axes))
	yi, xi, zi := len(axes)-2, len(axes)-1, strings.IndexByte(axes, 'Z')
	if s.spacing != nil {
		spacing[yi], spacing[xi] = s.spacing[0], s.spacing[1]
		units[yi], units[xi] = "millimeter", "millimeter"
	}
	if ti := strings.IndexByte(axes, 'T'); ti >= 0 && s.tr > 0 && !math.IsInf(s.tr, 0) {
		spacing[ti], units[ti] = s.tr, "millisecond"
	}
	if zi >= 0 {
		if d, ok := v.zSpacing(); ok {
			spacing[zi], units[zi] = d, "millimeter"
		}
	}
	m := loader.NewMeta("dicom", axes, shape, dt, chunk, spacing, units)
	p0 := v.position(0)
	if p0 != nil && s.orient != nil {
		dot := func(a []float64) float64 { return a[0]*p0[0] + a[1]*p0[1] + a[2]*p0[2] }
		trans[xi], trans[yi] = dot(s.orient[:3]), dot(s.orient[3:])
		if zi >= 0 && v.zs != nil {
			trans[zi] = v.zs[0]
		}
		m.Levels[0].Translation = trans
	}
	m.Anatomy = v.anatomy(spacing[xi], spacing[yi])
	if s.slope != 1 || s.intercept != 0 {
		m.ValueScale = &loader.ValueScale{Slope: s.slope, Intercept: s.intercept}
	}
	m.Modality, m.ValueUnit = s.modality, s.valueUnit()
	if s.spp == 3 {
		m.RGB = true
	} else if s.hasWindow {
		lo, hi := s.wc-s.ww/2, s.wc+s.ww/2
		lo, hi = (lo-s.intercept)/s.slope, (hi-s.intercept)/s.slope
		if lo > hi {
			lo, hi = hi, lo
		}
		m.Channels = []loader.Channel{{Lo: lo, Hi: hi, HasWindow: true}}
	}
	m.Notes = append(m.Notes, v.notes...)
	if s.modality != "" {
		m.Notes = append(m.Notes, "modality "+s.modality)
	}
	switch {
	case s.photometric == "MONOCHROME1":
		m.Notes = append(m.Notes, "MONOCHROME1: low values are white; shown as stored")
	case s.photometric == "MONOCHROME2" || s.photometric == "RGB" || s.photometric == "":
	case s.syntax == tsJPEGBase && strings.HasPrefix(s.photometric, "YBR_FULL"):
		m.Notes = append(m.Notes, s.photometric+" JPEG converted to RGB")
	default:
		m.Notes = append(m.Notes, "PhotometricInterpretation "+s.photometric+": samples as stored")
	}
	if s.orient != nil {
		m.Notes = append(m.Notes, fmt.Sprintf("orientation (row, column) %s", fmtFloats(s.orient)))
	}
	if v.ordered && len(v.zs) > 2 {
		d, _ := v.zSpacing()
		worst := 0.0
		for i := 1; i < len(v.zs); i++ {
			worst = math.Max(worst, math.Abs(v.zs[i]-v.zs[i-1]-d))
		}
		if worst > 1e-3*math.Max(d, 1) {
			m.Notes = append(m.Notes, fmt.Sprintf("slices unevenly spaced (steps differ from %.6g mm by up to %.3g mm)", d, worst))
		}
	}
	for _, o := range v.slices[1:] {
		if o.slope != s.slope || o.intercept != s.intercept {
			m.Notes = append(m.Notes, "RescaleSlope/Intercept differ between slices; the first slice's is given")
			break
		}
	}
	if s.perFrameRescale {
		m.Notes = append(m.Notes, "per-frame rescale: the first frame's is given")
	}
	switch s.syntax {
	case tsImplicitLE, tsExplicitLE, tsExplicitBE, tsDeflated:
	default:
		m.Notes = append(m.Notes, "transfer syntax "+syntaxName(s.syntax))
	}
	return m
}

// syntaxName names a compressed transfer syntax.
func syntaxName(ts string) string {
	switch ts {
	case tsRLE:
		return "RLE lossless"
	case tsJPEGBase:
		return "JPEG baseline"
	case tsJPEGLL14:
		return "JPEG lossless (process 14)"
	case tsJPEGLLSV1:
		return "JPEG lossless (process 14, selection value 1)"
	}
	return ts
}

func fmtFloats(v []float64) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = strconv.FormatFloat(f, 'g', 6, 64)
	}
	return strings.Join(s, `\`)
}

// open makes the source of series i.
func (c *catalog) open(i int) (loader.Source, error) {
	v := c.vols[i]
	m := v.meta()
	m.Notes = append(m.Notes, c.notes...)
	if len(c.list) > 0 {
		m.Series, m.SeriesIndex = c.list, i
	}
	if c.opened != "" {
		for _, s := range v.slices {
			if s.path != c.opened {
				m.DataFiles = append(m.DataFiles, s.path)
			}
		}
	}
	if err := m.Validate(); err != nil {
		return nil, formatError("%v", err)
	}
	return &source{cat: c, vol: v, meta: m, frames: map[*slice]*frameIndex{}}, nil
}

// source is one opened series. It is safe for concurrent use.
type source struct {
	cat  *catalog
	vol  *volume
	meta *loader.Meta

	mu     sync.Mutex
	frames map[*slice]*frameIndex // fragment indexes of encapsulated files, built when first read
	closed loader.Closing         // a read after Close is ErrClosed
}

func (s *source) Meta() *loader.Meta { return s.meta }

// Close ends reading; the files are opened per read, so nothing is held.
func (s *source) Close() error {
	s.closed.SetClosed()
	return nil
}

// OpenSeries opens series i of the folder.
func (s *source) OpenSeries(ctx context.Context, i int) (loader.Source, error) {
	if i < 0 || i >= len(s.cat.vols) {
		return nil, fmt.Errorf("no series %d (the folder holds %d)", i, len(s.cat.vols))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.cat.open(i)
}

// ReadChunk reads plane idx[0] (for a volume) into dst.
func (s *source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	if err := s.closed.Closed(); err != nil {
		return err
	}
	t, z := 0, 0
	if i := s.meta.AxisIndex('T'); i >= 0 {
		t = idx[i]
	}
	if i := s.meta.AxisIndex('Z'); i >= 0 {
		z = idx[i]
	}
	sl, frame := s.vol.planeAt(t, z)
	if err := s.readFrame(sl, frame, dst); err != nil {
		if sl.path != s.cat.opened {
			return fmt.Errorf("%s: %w", sl.name, err)
		}
		return err
	}
	return nil
}
