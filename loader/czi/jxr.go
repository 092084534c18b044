//go:build !nojxr && cgo

package czi

// JPEG XR subblocks, decoded by Debian's libjxr (jxrlib 1.2, libjxr-dev),
// in a child process (jxr_child.go); a build with the tag nojxr, or
// without cgo, refuses them by name instead (jxr_off.go).
//
// A CZI subblock of compression 4 holds a whole JPEG XR file: the
// TIFF-like container ("II", 0xBC, an IFD giving the pixel format GUID and
// the codestream's place) and the codestream ("WMPHOTO"). libjxr has
// live assert()s and trusts its container more than it should (an
// orientation tag of 8 or more aborts the process; descriptive metadata
// tags of an unexpected type abort it too; unknown tags are printed to
// stderr). So the container is read here, in Go, and only what decoding
// needs — the pixel format and the codestream — is handed to libjxr in
// a container built afresh. Before any pixel is decoded, the
// codestream's own header (parsed by libjxr, whose reads from memory are
// bounds-checked) must give the subblock's stored size, one channel for
// gray or three for colour, and the bit depth of the subblock's pixel
// type; the output buffer is then exactly what those say.
//
// Not guarded here: the entropy-coded data itself. libjxr decodes it
// without bounds checks, and one changed byte there can crash the process
// in C: a run index decoded from garbage indexes gSignificantRunBin out of
// bounds in DecodeSignificantRun (SIGSEGV, seen with single-byte
// corruptions past the first ~120 bytes of a codestream). Guarding that
// would mean validating the whole bitstream — decoding it — which is why
// decoding runs in a child process: a corrupt subblock crashes the child,
// and reading that subblock fails with an error saying so.
//
// Each call makes its own stream and decoder objects; libjxr keeps no
// shared state between them, so subblocks decode in parallel.

/*
#cgo CFLAGS: -I/usr/include/jxrlib -D__ANSI__ -DDISABLE_PERF_MEASUREMENT -w
#cgo LDFLAGS: -ljpegxr -ljxrglue
#include <stdlib.h>
#include <string.h>
#include <JXRGlue.h>

typedef struct {
	struct WMPStream *ws;
	PKImageDecode *dec;
} vvJxr;

typedef struct {
	long width, height;
	int srcColor, srcDepth; // the informational source format
	int color, channels;    // the coded planes
} vvJxrInfo;

// vvJxrOpen reads the container and the codestream header of the JPEG XR
// file in buf (which must outlive the handle).
static ERR vvJxrOpen(void *buf, size_t n, vvJxr *h, vvJxrInfo *info) {
	ERR err = WMP_errSuccess;
	memset(h, 0, sizeof *h);
	Call(CreateWS_Memory(&h->ws, buf, n));
	Call(PKImageDecode_Create_WMP(&h->dec));
	Call(h->dec->Initialize(h->dec, h->ws));
	info->width = (long)h->dec->WMP.wmiI.cWidth;
	info->height = (long)h->dec->WMP.wmiI.cHeight;
	info->srcColor = (int)h->dec->WMP.wmiI.cfColorFormat;
	info->srcDepth = (int)h->dec->WMP.wmiI.bdBitDepth;
	info->color = (int)h->dec->WMP.wmiSCP.cfColorFormat;
	info->channels = (int)h->dec->WMP.wmiSCP.cChannel;
Cleanup:
	return err;
}

// vvJxrDecode decodes the whole picture into out, rows of stride bytes,
// as JxrDecApp sets its decoder up for a file's own pixel format.
static ERR vvJxrDecode(vvJxr *h, unsigned char *out, U32 stride) {
	ERR err = WMP_errSuccess;
	PKImageDecode *d = h->dec;
	PKPixelInfo pi;
	PKRect rect = {0, 0, 0, 0};
	pi.pGUIDPixFmt = &d->guidPixFormat;
	Call(PixelFormatLookup(&pi, LOOKUP_FORWARD));
	d->WMP.wmiSCP.bfBitstreamFormat = SPATIAL;
	d->WMP.wmiSCP.uAlphaMode = 0;
	d->WMP.wmiSCP.sbSubband = SB_ALL;
	d->WMP.bIgnoreOverlap = FALSE;
	d->WMP.wmiI.cfColorFormat = pi.cfColorFormat;
	d->WMP.wmiI.bdBitDepth = pi.bdBitDepth;
	d->WMP.wmiI.cBitsPerUnit = pi.cbitUnit;
	d->WMP.wmiI.cThumbnailWidth = d->WMP.wmiI.cWidth;
	d->WMP.wmiI.cThumbnailHeight = d->WMP.wmiI.cHeight;
	d->WMP.wmiI.bSkipFlexbits = FALSE;
	d->WMP.wmiI.cROILeftX = 0;
	d->WMP.wmiI.cROITopY = 0;
	d->WMP.wmiI.cROIWidth = d->WMP.wmiI.cWidth;
	d->WMP.wmiI.cROIHeight = d->WMP.wmiI.cHeight;
	d->WMP.wmiI.oOrientation = O_NONE;
	d->WMP.wmiI.cPostProcStrength = 0;
	d->WMP.wmiSCP.bVerbose = FALSE;
	rect.Width = (I32)d->WMP.wmiI.cWidth;
	rect.Height = (I32)d->WMP.wmiI.cHeight;
	Call(d->Copy(d, &rect, out, stride));
Cleanup:
	return err;
}

static void vvJxrClose(vvJxr *h) {
	if (h->dec != NULL) {
		h->dec->Release(&h->dec);
	}
	if (h->ws != NULL) {
		h->ws->Close(&h->ws);
	}
}
*/
import "C"

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unsafe"

	"vastview/loader"
)

// jxrFormat is a JPEG XR pixel format a CZI pixel type is stored in.
type jxrFormat struct {
	name     string
	last     byte // the GUID's last byte; the others are jxrGUIDPrefix
	channels int  // coded planes
	depth    C.int
	swap     bool // RGB order: swap red and blue for CZI's Bgr
}

// jxrGUIDPrefix is the first 15 bytes of the GUID_PKPixelFormat…
// GUIDs, as stored in a JPEG XR file (little-endian fields).
var jxrGUIDPrefix = []byte{0x24, 0xc3, 0xdd, 0x6f, 0x03, 0x4e, 0xfe, 0x4b, 0xb1, 0x85, 0x3d, 0x77, 0x76, 0x8d, 0xc9}

var jxrFormats = []jxrFormat{
	{"8bppGray", 0x08, 1, C.BD_8, false},
	{"16bppGray", 0x0b, 1, C.BD_16, false},
	{"24bppBGR", 0x0c, 3, C.BD_8, false},
	{"24bppRGB", 0x0d, 3, C.BD_8, true},
	{"32bppGrayFloat", 0x11, 1, C.BD_32F, false},
	{"48bppRGB", 0x15, 3, C.BD_16, true},
}

// jxrFor lists the JPEG XR formats that decode to each CZI pixel type
// (libCZI's choice: Bgr48 is written as 48bppRGB in red, green, blue
// order).
var jxrFor = map[int32][]string{
	0: {"8bppGray"},
	1: {"16bppGray"},
	2: {"32bppGrayFloat"},
	3: {"24bppBGR", "24bppRGB"},
	4: {"48bppRGB"},
}

// Container tags.
const (
	jxrTagPixelFormat    = 0xbc01
	jxrTagTransformation = 0xbc02
	jxrTagImageOffset    = 0xbcc0
	jxrTagImageByteCount = 0xbcc1
)

// jxrContainer reads a JPEG XR file's container and returns the name of
// its pixel format (or its GUID in hex if it is none known here) and its
// codestream.
func jxrContainer(b []byte) (string, []byte, error) {
	le := binary.LittleEndian
	if len(b) < 8 || b[0] != 'I' || b[1] != 'I' || b[2] != 0xbc {
		return "", nil, fmt.Errorf("no JPEG XR file header")
	}
	if b[3] > 1 {
		return "", nil, unsupported(fmt.Sprintf("JPEG XR files of version %d", b[3]))
	}
	ifd := int64(le.Uint32(b[4:]))
	size := int64(len(b))
	if ifd < 8 || ifd > size-2 {
		return "", nil, fmt.Errorf("a JPEG XR directory at %d in %d bytes", ifd, size)
	}
	n := int64(le.Uint16(b[ifd:]))
	if n == 0 || ifd+2+12*n > size {
		return "", nil, fmt.Errorf("a JPEG XR directory of %d entries at %d in %d bytes", n, ifd, size)
	}
	var guid []byte
	offset, count := int64(-1), int64(-1)
	for i := int64(0); i < n; i++ {
		e := b[ifd+2+12*i:]
		tag, cnt, val := le.Uint16(e), int64(le.Uint32(e[4:])), int64(le.Uint32(e[8:]))
		switch tag {
		case jxrTagPixelFormat:
			if cnt != 16 || val > size-16 {
				return "", nil, fmt.Errorf("a JPEG XR pixel format of %d bytes at %d in %d", cnt, val, size)
			}
			guid = b[val : val+16]
		case jxrTagTransformation:
			if cnt != 1 || val >= 8 {
				return "", nil, fmt.Errorf("JPEG XR orientation %d", val)
			}
			if val != 0 {
				return "", nil, unsupported(fmt.Sprintf("JPEG XR pictures rotated or flipped (orientation %d)", val))
			}
		case jxrTagImageOffset:
			if cnt != 1 {
				return "", nil, fmt.Errorf("%d JPEG XR image offsets", cnt)
			}
			offset = val
		case jxrTagImageByteCount:
			if cnt != 1 {
				return "", nil, fmt.Errorf("%d JPEG XR image byte counts", cnt)
			}
			count = val
		}
	}
	if guid == nil || offset < 0 {
		return "", nil, fmt.Errorf("a JPEG XR file without pixel format or image offset")
	}
	if offset > size-8 || count > size-offset {
		return "", nil, fmt.Errorf("a JPEG XR codestream at %d of %d bytes in %d: %w", offset, count, size, loader.ErrTruncated)
	}
	if count <= 0 {
		count = size - offset
	}
	cs := b[offset : offset+count]
	if !bytes.HasPrefix(cs, []byte("WMPHOTO\x00")) {
		return "", nil, fmt.Errorf("no JPEG XR codestream at %d", offset)
	}
	name := fmt.Sprintf("%x", guid)
	if bytes.Equal(guid[:15], jxrGUIDPrefix) {
		for _, f := range jxrFormats {
			if guid[15] == f.last {
				name = f.name
			}
		}
	}
	return name, cs, nil
}

// jxrFile builds a minimal JPEG XR file around codestream cs: the pixel
// format f and the codestream's place, nothing else.
func jxrFile(f jxrFormat, cs []byte) []byte {
	const ifd, entries = 8, 3
	guidAt := ifd + 2 + 12*entries + 4
	csAt := guidAt + 16
	b := make([]byte, csAt+len(cs))
	le := binary.LittleEndian
	copy(b, "II\xbc\x01")
	le.PutUint32(b[4:], ifd)
	le.PutUint16(b[ifd:], entries)
	for i, e := range [entries][4]uint32{
		{jxrTagPixelFormat, 1, 16, uint32(guidAt)},
		{jxrTagImageOffset, 4, 1, uint32(csAt)},
		{jxrTagImageByteCount, 4, 1, uint32(len(cs))},
	} {
		o := b[ifd+2+12*i:]
		le.PutUint16(o, uint16(e[0]))
		le.PutUint16(o[2:], uint16(e[1]))
		le.PutUint32(o[4:], e[2])
		le.PutUint32(o[8:], e[3])
	}
	copy(b[guidAt:], jxrGUIDPrefix)
	b[guidAt+15] = f.last
	copy(b[csAt:], cs)
	return b
}

var jxrErrors = map[C.ERR]string{
	C.WMP_errFail:                     "failed",
	C.WMP_errNotYetImplemented:        "not implemented",
	C.WMP_errOutOfMemory:              "out of memory",
	C.WMP_errBufferOverflow:           "buffer overflow",
	C.WMP_errInvalidParameter:         "invalid parameter",
	C.WMP_errInvalidArgument:          "invalid argument",
	C.WMP_errUnsupportedFormat:        "unsupported format",
	C.WMP_errIncorrectCodecVersion:    "incorrect codec version",
	C.WMP_errIncorrectCodecSubVersion: "incorrect codec subversion",
}

func jxrError(what string, e C.ERR) error {
	if s, ok := jxrErrors[e]; ok {
		return fmt.Errorf("JPEG XR: %s: %s (libjxr error %d)", what, s, int(e))
	}
	return fmt.Errorf("JPEG XR: %s: libjxr error %d", what, int(e))
}

// jxrCheck checks, in Go, that data is a JPEG XR file of a pixel format
// that CZI pixel type pt is stored in, and returns that format and the
// codestream.
func jxrCheck(data []byte, pt int32) (*jxrFormat, []byte, error) {
	px, ok := pixels[pt]
	if !ok || jxrFor[pt] == nil {
		name := px.name
		if name == "" {
			name = fmt.Sprintf("type %d", pt)
		}
		return nil, nil, unsupported("JPEG XR compression of " + name + " pixels")
	}
	name, cs, err := jxrContainer(data)
	if err != nil {
		return nil, nil, err
	}
	var f *jxrFormat
	for _, n := range jxrFor[pt] {
		if n == name {
			for i := range jxrFormats {
				if jxrFormats[i].name == n {
					f = &jxrFormats[i]
				}
			}
		}
	}
	if f == nil {
		return nil, nil, fmt.Errorf("a JPEG XR picture of %s pixels for a subblock of %s pixels", name, px.name)
	}
	return f, cs, nil
}

// decodeJXRHere decodes the JPEG XR file data into exactly the stored
// pixels of a w x h subblock of CZI pixel type pt, in this process (see
// decodeJXR): little-endian samples, rows packed, Bgr order for colour. It
// is safe for concurrent use.
func decodeJXRHere(data []byte, pt int32, w, h int) ([]byte, error) {
	f, cs, err := jxrCheck(data, pt)
	if err != nil {
		return nil, err
	}
	px := pixels[pt]
	file := jxrFile(*f, cs)
	buf := C.CBytes(file) // libjxr reads only C memory, never the mapped file
	defer C.free(buf)
	var hd C.vvJxr
	var info C.vvJxrInfo
	defer C.vvJxrClose(&hd)
	if e := C.vvJxrOpen(buf, C.size_t(len(file)), &hd, &info); e < 0 {
		return nil, jxrError("reading the header", e)
	}
	if info.width != C.long(w) || info.height != C.long(h) {
		return nil, fmt.Errorf("a JPEG XR picture of %d x %d for a subblock of %d x %d", info.width, info.height, w, h)
	}
	if int(info.channels) != f.channels || info.srcDepth != f.depth ||
		(f.channels == 1) != (info.color == C.Y_ONLY) || (f.channels == 1) != (info.srcColor == C.Y_ONLY) {
		return nil, fmt.Errorf("a JPEG XR codestream of %d channels (colour format %d, depth %d) in a %s file", info.channels, info.color, info.srcDepth, f.name)
	}
	n := w * h * px.bytes()
	out := C.malloc(C.size_t(n))
	if out == nil {
		return nil, fmt.Errorf("JPEG XR: no memory for %d bytes", n)
	}
	defer C.free(out)
	if e := C.vvJxrDecode(&hd, (*C.uchar)(out), C.U32(w*px.bytes())); e < 0 {
		return nil, jxrError("decoding", e)
	}
	pix := bytes.Clone(unsafe.Slice((*byte)(out), n))
	if f.swap {
		es := px.dtype.Size()
		for i := 0; i < len(pix); i += 3 * es {
			for k := 0; k < es; k++ {
				pix[i+k], pix[i+2*es+k] = pix[i+2*es+k], pix[i+k]
			}
		}
	}
	return pix, nil
}
