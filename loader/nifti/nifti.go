// Package nifti reads NIfTI-1 and NIfTI-2 volumes: single files (.nii,
// .nii.gz) and header/image pairs (.hdr with .img or .img.gz), either byte
// order. It registers the format "nifti" with the loader.
//
// Axes follow the file's x-fastest storage: 2-D "YX", 3-D "ZYX", 4-D
// "TZYX" (dim[4] is time), and a fifth dimension longer than 1 becomes a C
// axis, the slowest ("CTZYX", or "CZYX" when there is one time point).
// RGB24 and RGBA32 voxels become an interleaved C axis before Y. Spacing is
// |pixdim|, units come from xyzt_units, the translation from the sform (or
// else the qform) offset, and scl_slope/scl_inter are reported as
// Meta.ValueScale; samples are the stored values, unscaled. Meta.Anatomy is
// the sform (or else the qform) in scanner RAS+ millimetres, chosen and
// computed as nibabel does; nil when neither code is set.
//
// Uncompressed data is mapped and read one plane per chunk; gzip data is
// decoded once in the background (see loader/internal/stream).
package nifti

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
	"vastview/loader/internal/stream"
)

// format is NIfTI as the registry knows it: a header, plain or gzip, whose
// size field and magic are NIfTI-1's or NIfTI-2's (see isHeader).
var format = loader.Format{
	Name: "nifti", Titles: []string{"NIfTI"}, Open: Open, Exts: []string{".nii", ".nii.gz", ".hdr"},
	Sniff: isHeader,
}

func init() { loader.Register(format) }

// Match reports whether head starts a NIfTI header (plain or gzip), or
// path is the .img of a pair whose .hdr is a NIfTI header. It is safe for
// concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// isHeader reports whether head starts a NIfTI header (plain or gzip), or
// path is the .img of a pair whose .hdr is a NIfTI header.
func isHeader(path string, head []byte) bool {
	if v, _ := sniff(decodedHead(head)); v != 0 {
		return true
	}
	if hdr := pairHeader(path); hdr != "" {
		b, err := readHead(hdr)
		if err != nil {
			return false
		}
		v, _ := sniff(b)
		return v != 0
	}
	return false
}

// decodedHead returns the start of head, decompressed if it is gzip.
func decodedHead(head []byte) []byte {
	if len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return head
	}
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return nil
	}
	out := make([]byte, size2+8)
	n, _ := io.ReadFull(zr, out)
	return out[:n]
}

// readHead returns the first bytes of the file at path, decompressed if it
// is gzip: enough for either header version.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw := make([]byte, 4096)
	n, err := io.ReadFull(f, raw)
	if n == 0 && err != nil {
		return nil, err
	}
	raw = raw[:n]
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("gzip: %v", err)
		}
		out := make([]byte, size2+8)
		n, _ := io.ReadFull(zr, out)
		return out[:n], nil
	}
	return raw, nil
}

// pairHeader returns the .hdr beside an .img (or .img.gz) path, or "".
func pairHeader(path string) string {
	base, ok := cutExt(path, ".img.gz", ".img")
	if !ok {
		return ""
	}
	return existing(base, ".hdr", ".hdr.gz", ".HDR", ".HDR.GZ")
}

// pairImage returns the .img beside a .hdr (or .hdr.gz) path, or "".
func pairImage(path string) string {
	base, ok := cutExt(path, ".hdr.gz", ".hdr", ".nii.gz", ".nii")
	if !ok {
		return ""
	}
	return existing(base, ".img", ".img.gz", ".IMG", ".IMG.GZ")
}

// cutExt strips the first of exts that path ends with, ignoring case.
func cutExt(path string, exts ...string) (string, bool) {
	lower := strings.ToLower(path)
	for _, e := range exts {
		if strings.HasSuffix(lower, e) {
			return path[:len(path)-len(e)], true
		}
	}
	return "", false
}

// existing returns the first base+ext that is a regular file, or "".
func existing(base string, exts ...string) string {
	for _, e := range exts {
		if st, err := os.Stat(base + e); err == nil && st.Mode().IsRegular() {
			return base + e
		}
	}
	return ""
}

func isGzip(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var m [2]byte
	_, err = io.ReadFull(f, m[:])
	return err == nil && m[0] == 0x1f && m[1] == 0x8b
}

// Open opens a NIfTI file: a .nii or .nii.gz, or either file of a pair.
// The returned Source is safe for concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	hdrPath := path
	var notes []string
	if h := pairHeader(path); h != "" {
		file, note, err := loader.Companion(ctx, path, "the header", h)
		if err != nil {
			return nil, err
		}
		hdrPath = file
		if note != "" {
			notes = append(notes, note)
		}
	}
	b, err := readHead(hdrPath)
	if err != nil {
		return nil, formatError("reading header: %v", err)
	}
	h := parseHeader(b)
	if h == nil {
		return nil, formatError("not a NIfTI-1 or NIfTI-2 header")
	}
	lay, err := buildLayout(h)
	if err != nil {
		return nil, wrap(err)
	}
	off, err := h.voxelOffset()
	if err != nil {
		return nil, wrap(err)
	}
	dataPath := hdrPath
	if !h.single {
		if dataPath = pairImage(hdrPath); dataPath == "" {
			return nil, formatError("no .img file beside the header")
		}
	}
	parts := []rawvol.Part{{Path: dataPath}}
	note, err := rawvol.Companions(ctx, path, parts)
	if err != nil {
		return nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	dataPath = parts[0].Path
	part := rawvol.Part{Path: dataPath, ByteSkip: off}
	if isGzip(dataPath) {
		part = rawvol.Part{Path: dataPath, Codec: stream.Gzip, DecodedSkip: off}
	}
	lay.meta.Notes = append(lay.meta.Notes, notes...)
	data, err := rawvol.Open([]rawvol.Part{part}, lay.dataBytes)
	if err != nil {
		return nil, wrap(err)
	}
	lay.meta.DataFiles = rawvol.OtherFiles(path, hdrPath, dataPath)
	src, err := rawvol.New(lay.meta, data, h.bigEndian, lay.interleaved)
	if err != nil {
		return nil, err
	}
	return src, nil
}

func formatError(format string, args ...any) error {
	return loader.Errorf("nifti", format, args...)
}

// wrap makes err a FormatError unless it already is a loader error.
func wrap(err error) error {
	var fe *loader.FormatError
	var ue *loader.UnsupportedError
	if errors.As(err, &fe) || errors.As(err, &ue) {
		return err
	}
	return &loader.FormatError{Format: "nifti", Msg: err.Error()}
}
