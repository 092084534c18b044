package loader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// HeadSize is how many bytes of a file's start the registry reads to decide
// its format: every signature (Magic) ends within them.
const HeadSize = 4096

// Magic is a signature: bytes at a fixed place of a file's start, as
// image.RegisterFormat's.
type Magic struct {
	// Offset is where Bytes start, from the file's first byte.
	Offset int
	// Bytes are the signature; a '?' matches any byte.
	Bytes string
}

// match reports whether head holds the signature.
func (m Magic) match(head []byte) bool {
	if len(head) < m.Offset+len(m.Bytes) {
		return false
	}
	b := head[m.Offset:]
	for i := 0; i < len(m.Bytes); i++ {
		if m.Bytes[i] != '?' && m.Bytes[i] != b[i] {
			return false
		}
	}
	return true
}

// Format describes an image format as data: what it reads and how its
// files, folders and addresses are recognised. The registry checks every
// format's claim on a path once; see Open for how claims are decided.
type Format struct {
	// Name is the short name reported in Meta.Format.
	Name string
	// Titles are the words by which help and README name the format
	// ("TIFF", "OME-TIFF").
	Titles []string
	// Open opens the file; it returns ctx.Err() if ctx ends first (a slow
	// server, a user who gave up). Errors do not repeat the path.
	Open func(ctx context.Context, path string) (Source, error)
	// Exts are the file name endings the format's files usually have
	// (".tif", ".nii.gz"), lower case: listing a folder for browsing
	// goes by them, without reading the files, and so do ByName claims.
	// For a format that reads folders (".zarr"), they are its folders'
	// endings.
	Exts []string

	// Magic lists signatures, any one of which claims a file for the
	// format.
	Magic []Magic
	// Sniff, when set, claims files by content that no fixed signature
	// describes: a text header, a compressed header, a signature that
	// counts only with one of the format's name endings. It is given
	// the file's first bytes (up to HeadSize), must be cheap, and may
	// read no more than a companion file's first bytes.
	Sniff func(path string, head []byte) bool
	// ByName says the format has no signature: a file whose name ends in
	// one of Exts is its own when no format claims it by content.
	ByName bool

	// Markers are names of files whose presence in a folder claims the
	// folder for the format ("zarr.json", "DICOMDIR"). A marker is
	// decisive: a folder holding one is not read further.
	Markers []string
	// Folder, when set, claims a folder no marker claims, by reading
	// some of its entries (a folder of DICOM files; any folder, for
	// frames).
	Folder func(dir string) bool
	// FrameExts, for a format that reads a folder of files as the frames
	// of one stack, are the frames' name endings.
	FrameExts []string
	// Patterns says the format claims glob patterns.
	Patterns bool
	// URL, when set, claims network addresses (see IsURL).
	URL func(addr string) bool
}

// Precedence states that where both formats claim one path, Over reads
// it, not Under, and why: the deliberate exceptions to "several formats
// claiming one path is an error".
type Precedence struct {
	Over, Under string
	Why         string
}

var (
	formatsMu  sync.Mutex
	formats    []Format
	arranged   bool
	precedence []Precedence
)

// Register makes a format known to Open. The order of registration does
// not matter: which format reads a path is decided by the claims of all
// of them (see Open), and Arrange gives the order Formats lists them in.
// Registering a name twice panics. It is safe for concurrent use.
func Register(f Format) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	for _, g := range formats {
		if g.Name == f.Name {
			panic("loader: format " + f.Name + " registered twice")
		}
	}
	formats = append(formats, f)
	if arranged {
		sortFormats(nil)
	}
}

// Arrange gives the order in which Formats lists the formats, by name, and
// the precedences that decide between formats claiming one path. It panics
// when a name is not registered yet. Formats it does not name are listed
// after these, by name, whenever they register (a test of the list checks
// that it names every format).
func Arrange(order []string, prec []Precedence) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	have := map[string]bool{}
	for _, f := range formats {
		have[f.Name] = true
	}
	named := map[string]bool{}
	for _, n := range order {
		if !have[n] {
			panic("loader: format " + n + " is listed but not registered")
		}
		named[n] = true
	}
	for _, p := range prec {
		if !named[p.Over] || !named[p.Under] {
			panic("loader: precedence of unlisted formats " + p.Over + ", " + p.Under)
		}
	}
	arranged, precedence = true, slices.Clone(prec)
	sortFormats(order)
}

// formatOrder is the order Arrange gave, by name.
var formatOrder = map[string]int{}

// sortFormats puts formats in the order given (nil: the one given before),
// unlisted ones last by name. formatsMu is held.
func sortFormats(order []string) {
	if order != nil {
		formatOrder = map[string]int{}
		for i, n := range order {
			formatOrder[n] = i
		}
	}
	rank := func(f Format) int {
		if i, ok := formatOrder[f.Name]; ok {
			return i
		}
		return len(formatOrder)
	}
	slices.SortStableFunc(formats, func(a, b Format) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		if rank(a) == len(formatOrder) {
			return strings.Compare(a.Name, b.Name)
		}
		return 0
	})
}

// Formats returns the registered formats, in the order Arrange gave. It is
// safe for concurrent use.
func Formats() []Format {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	return append([]Format(nil), formats...)
}

// registry returns the formats and precedences.
func registry() ([]Format, []Precedence) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	return append([]Format(nil), formats...), precedence
}

// Claims reports whether the format claims path, whose first bytes are
// head (up to HeadSize; nil for a folder, a glob pattern or a URL), leaving
// aside other formats: by signature or content, or, for a ByName format,
// by name. It reads no more than the format's Folder and Sniff do.
func (f *Format) Claims(path string, head []byte) bool {
	if head != nil {
		return f.claimsContent(path, head) || f.ByName && HasExt(path, f.Exts...)
	}
	switch {
	case IsURL(path):
		return f.URL != nil && f.URL(path)
	case IsPattern(path):
		return f.Patterns
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return false
	}
	if m := markerIn(path, []Format{*f}); m != nil {
		return true
	}
	return f.Folder != nil && markerIn(path, Formats()) == nil && f.Folder(path)
}

// claimsContent reports whether the format claims a file by its content.
func (f *Format) claimsContent(path string, head []byte) bool {
	for _, m := range f.Magic {
		if m.match(head) {
			return true
		}
	}
	return f.Sniff != nil && f.Sniff(path, head)
}

// markerIn returns the formats of fs that a marker file in dir claims it
// for (nil for none).
func markerIn(dir string, fs []Format) []string {
	var out []string
	for _, f := range fs {
		for _, m := range f.Markers {
			if st, err := os.Stat(filepath.Join(dir, m)); err == nil && st.Mode().IsRegular() {
				out = append(out, f.Name)
				break
			}
		}
	}
	return out
}

// claimants returns the formats that claim path (head as for Claims), in
// the order Formats lists them, and the precedences.
func claimants(path string, head []byte) ([]Format, []Precedence) {
	fs, prec := registry()
	var out []Format
	pick := func(ok func(f *Format) bool) {
		for i := range fs {
			if ok(&fs[i]) {
				out = append(out, fs[i])
			}
		}
	}
	switch {
	case head != nil:
		pick(func(f *Format) bool { return f.claimsContent(path, head) })
		if out == nil {
			pick(func(f *Format) bool { return f.ByName && HasExt(path, f.Exts...) })
		}
	case IsURL(path):
		pick(func(f *Format) bool { return f.URL != nil && f.URL(path) })
	case IsPattern(path):
		pick(func(f *Format) bool { return f.Patterns })
	default:
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			return nil, prec
		}
		if names := markerIn(path, fs); names != nil {
			pick(func(f *Format) bool { return slices.Contains(names, f.Name) })
		} else {
			pick(func(f *Format) bool { return f.Folder != nil && f.Folder(path) })
		}
	}
	return out, prec
}

// decide returns the one format of those claiming a path that reads it:
// the only one, or the one every other yields to by a precedence. It
// returns an AmbiguousError when several remain and ok false when none
// claims.
func decide(cands []Format, prec []Precedence) (Format, bool, error) {
	if len(cands) == 0 {
		return Format{}, false, nil
	}
	var left []Format
	for _, c := range cands {
		yields := slices.ContainsFunc(cands, func(o Format) bool {
			return slices.ContainsFunc(prec, func(p Precedence) bool { return p.Over == o.Name && p.Under == c.Name })
		})
		if !yields {
			left = append(left, c)
		}
	}
	if len(left) != 1 {
		names := make([]string, len(cands))
		for i, c := range cands {
			names[i] = c.Name
		}
		return Format{}, true, &AmbiguousError{Formats: names}
	}
	return left[0], true, nil
}

// AmbiguousError reports a path that several formats claim, none of them
// stated to read it rather than the others.
type AmbiguousError struct {
	Formats []string // the formats claiming it, in the order Formats lists them
}

func (e *AmbiguousError) Error() string {
	return "claimed by several formats (" + strings.Join(e.Formats, ", ") + ") and none is stated to read it rather than the others"
}

// Detect returns the format that reads path (a file, folder, glob pattern
// or URL, without a series selector): the one format that claims it, or
// the one the others yield to by a precedence of Arrange. When no format
// claims it the error wraps ErrFormat and names the formats tried; when
// several do it is an *AmbiguousError naming them. Errors do not repeat the
// path. It is safe for concurrent use.
func Detect(path string) (Format, error) {
	head, err := readHead(path)
	if err != nil {
		return Format{}, err
	}
	return detect(path, head)
}

// detect is Detect with the file's first bytes read (nil for others).
func detect(path string, head []byte) (Format, error) {
	cands, prec := claimants(path, head)
	f, ok, err := decide(cands, prec)
	if err != nil || ok {
		return f, err
	}
	fs, _ := registry()
	var tried []string
	for _, f := range fs {
		if head != nil && (f.Magic != nil || f.Sniff != nil || f.ByName) ||
			head == nil && !IsURL(path) && !IsPattern(path) && (f.Markers != nil || f.Folder != nil) ||
			IsURL(path) && f.URL != nil || IsPattern(path) && f.Patterns {
			tried = append(tried, f.Name)
		}
	}
	what := "no format recognises its first bytes or its name"
	switch {
	case IsURL(path):
		what = "no format reads such an address"
	case IsPattern(path):
		what = "no format reads glob patterns"
	case head == nil:
		what = "no format reads the folder"
	}
	if len(tried) == 0 {
		return Format{}, fmt.Errorf("%w: %s", ErrFormat, what)
	}
	return Format{}, fmt.Errorf("%w: %s (tried %s)", ErrFormat, what, strings.Join(tried, ", "))
}

// readHead returns the first bytes of the file at path (up to HeadSize),
// or nil for a folder, a glob pattern or a URL. A path that names neither
// a regular file nor a folder is refused with ErrNotRegular.
func readHead(path string) ([]byte, error) {
	if IsPattern(path) || IsURL(path) {
		return nil, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, StripPath(err)
	}
	if st.IsDir() {
		return nil, nil
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(st.Mode())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, StripPath(err)
	}
	defer f.Close()
	head := make([]byte, HeadSize)
	n, _ := f.ReadAt(head, 0)
	return head[:n], nil
}

// Listed reports whether name (a file's base name) ends as the files of a
// registered format do (see Format.Exts). Hidden files are not listed. It
// is safe for concurrent use.
func Listed(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	return slices.ContainsFunc(Formats(), func(f Format) bool { return HasExt(name, f.Exts...) })
}

// ListedFolder reports whether the folder at path is one image by its name
// or its markers alone (a Zarr store, an N5 container, a folder holding a
// DICOMDIR), without reading its files: the folders a browsing list takes
// beside files. Hidden folders are not listed. It is safe for concurrent
// use.
func ListedFolder(path string) bool {
	name := filepath.Base(path)
	if name == "" || name[0] == '.' {
		return false
	}
	fs := Formats()
	for _, f := range fs {
		if f.Markers != nil && HasExt(name, f.Exts...) {
			return true
		}
	}
	return markerIn(path, fs) != nil
}

// IsFrame reports whether name (a file's base name) ends as the frames of
// a format that reads folders of frames do (see Format.FrameExts). Hidden
// files are not frames. It is safe for concurrent use.
func IsFrame(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	return slices.ContainsFunc(Formats(), func(f Format) bool { return HasExt(name, f.FrameExts...) })
}

// FolderFormat returns the name of the format that reads the folder at
// path as one image (a Zarr store, a DICOM series, a folder of frames), or
// "" when none does (or several do, undecided) or path is not a folder. It
// reads no more than the formats' Folder functions do; it is safe for
// concurrent use.
func FolderFormat(path string) string {
	if f, ok := folderFormat(path); ok {
		return f.Name
	}
	return ""
}

// FolderIsImage reports whether a format reads the folder at path as one
// image of its own (a Zarr store, an N5 container, a DICOM series) rather
// than as a stack of the frame files it holds. It is safe for concurrent
// use.
func FolderIsImage(path string) bool {
	f, ok := folderFormat(path)
	return ok && f.FrameExts == nil
}

// folderFormat is the format that reads the folder at path, if one does.
func folderFormat(path string) (Format, bool) {
	if IsURL(path) || IsPattern(path) {
		return Format{}, false
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return Format{}, false
	}
	f, err := detect(path, nil)
	return f, err == nil
}
