// Package prefs keeps vastview's typed preferences: recent files, the last
// view of each file, and the memory and disk budgets. It stores them in any
// string key-value store (Fyne's app preferences in the viewer, a map in
// tests), as JSON where a value has structure.
package prefs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
)

// Store is where preferences live; fyne.Preferences satisfies it.
type Store interface {
	String(key string) string
	SetString(key, value string)
}

// MaxRecent is the number of recent files kept.
const MaxRecent = 10

// Defaults of the budgets.
const (
	DefaultDiskCacheBytes = 20 << 30
)

// View is what is restored when a file is opened again.
type View struct {
	Plane    string  `json:"plane"` // xy, xz or yz
	T        int     `json:"t"`
	C        int     `json:"c"`
	Z        int     `json:"z"`
	Y        int     `json:"y"`
	X        int     `json:"x"`
	Zoom     float64 `json:"zoom"`
	CenterX  float64 `json:"cx"`
	CenterY  float64 `json:"cy"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Colormap string  `json:"colormap"`
	// Fitted is true when the view showed the whole plane (and so should
	// again at another window size).
	Fitted bool `json:"fitted,omitempty"`
	// Channels holds each channel's window and colormap (Lo, Hi and
	// Colormap above are the shown channel's, as older versions kept).
	Channels []ChannelView `json:"channels,omitempty"`
	// Mode is how several channels were shown: "composite", "color" or
	// "grayscale" ("" for composite).
	Mode string `json:"mode,omitempty"`
	// Layers are the layers laid over the image, bottom first; nil when
	// the view had none (then a file's own labels are offered again).
	Layers []LayerView `json:"layers,omitempty"`
	// LayersSet is true when Layers says what was shown, even none.
	LayersSet bool `json:"layers_set,omitempty"`
	// Layout is "four" for the four panels, "" for one plane.
	Layout string `json:"layout,omitempty"`
	// Turn is the rotation of a turned plane (render.Turn: the matrix
	// minus the identity, Z, Y, X order), empty for an aligned one.
	Turn []float64 `json:"turn,omitempty"`
	// Depth is where a turned plane's centre lies between the samples
	// of the axis normal to it, added to that axis's index Z, Y or X.
	Depth float64 `json:"depth,omitempty"`
	// Linear is true when the plane was sampled by trilinear
	// interpolation.
	Linear bool `json:"linear,omitempty"`
	// ROIs are the regions, lines and points drawn on the data, as
	// Measure → Export ROIs writes them.
	ROIs json.RawMessage `json:"rois,omitempty"`
	// View3D is the 3-D view's camera and rendering (Layout "3d" when it
	// was shown alone); nil when it was never changed.
	View3D *View3D `json:"view3d,omitempty"`
}

// View3D is how the 3-D view was shown.
type View3D struct {
	// Turn is the camera's rotation (the matrix minus the identity, Z, Y,
	// X order), Zoom its magnification, Center its centre in level-0
	// sample indices Z, Y, X (empty: the volume's centre).
	Turn   []float64 `json:"turn,omitempty"`
	Zoom   float64   `json:"zoom,omitempty"`
	Center []float64 `json:"center,omitempty"`
	// Mode is "mip", "minip", "mean", "alpha" or "iso".
	Mode    string  `json:"mode,omitempty"`
	Opacity float64 `json:"opacity,omitempty"`
	Iso     float64 `json:"iso,omitempty"`
	IsoSet  bool    `json:"iso_set,omitempty"`
	// Clip is the clipping box, Z0, Y0, X0, Z1, Y1, X1 (empty: none);
	// ClipPlane is true when the 2-D view's plane clipped.
	Clip      []int `json:"clip,omitempty"`
	ClipPlane bool  `json:"clip_plane,omitempty"`
}

// LayerView is how one layer was shown over the image.
type LayerView struct {
	Path     string  `json:"path"`
	Labels   bool    `json:"labels,omitempty"`
	Hidden   bool    `json:"hidden,omitempty"`
	Opacity  float64 `json:"opacity"`
	Blending string  `json:"blending,omitempty"`
	Outline  bool    `json:"outline,omitempty"`
	Selected uint32  `json:"selected,omitempty"`
}

// ChannelView is how one channel was shown.
type ChannelView struct {
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Colormap string  `json:"colormap"`
	// Hidden is true when the channel was left out of the composite.
	Hidden bool `json:"hidden,omitempty"`
}

// Prefs reads and writes the preferences in a Store. It is safe for
// concurrent use.
type Prefs struct {
	mu sync.Mutex
	s  Store
}

// New uses s for storage.
func New(s Store) *Prefs { return &Prefs{s: s} }

const (
	keyRecent    = "recent"
	keyCache     = "cache_bytes"
	keyDiskCache = "disk_cache_bytes"
	keyFolder    = "last_folder"
	keyViewPre   = "view:"
	keyHiddenPre = "hidden:"
)

// Recent returns the recent files, most recent first.
func (p *Prefs) Recent() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var r []string
	if json.Unmarshal([]byte(p.s.String(keyRecent)), &r) != nil {
		return nil
	}
	return r
}

// AddRecent puts path first in the recent files, keeping MaxRecent.
func (p *Prefs) AddRecent(path string) {
	r := slices.DeleteFunc(p.Recent(), func(s string) bool { return s == path })
	r = append([]string{path}, r...)
	if len(r) > MaxRecent {
		r = r[:MaxRecent]
	}
	p.setJSON(keyRecent, r)
}

// LastFolder is the folder a file dialog was last used in ("" if none).
func (p *Prefs) LastFolder() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.s.String(keyFolder)
}

// SetLastFolder remembers the folder a file dialog was used in.
func (p *Prefs) SetLastFolder(dir string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.s.SetString(keyFolder, dir)
}

// View returns the last view saved for the file identified by id (its
// path, say), and whether there was one.
func (p *Prefs) View(id string) (View, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var v View
	s := p.s.String(viewKey(id))
	if s == "" || json.Unmarshal([]byte(s), &v) != nil {
		return View{}, false
	}
	return v, true
}

// SetView saves the view of the file identified by id.
func (p *Prefs) SetView(id string, v View) { p.setJSON(viewKey(id), v) }

// CacheBytes is the memory budget for cached chunks; 0 means the default.
func (p *Prefs) CacheBytes() int64 { return p.int64(keyCache) }

// SetCacheBytes sets the memory budget (0: the default).
func (p *Prefs) SetCacheBytes(n int64) { p.setJSON(keyCache, max(n, 0)) }

// DiskCacheBytes is the size limit of the disk cache of computed levels.
func (p *Prefs) DiskCacheBytes() int64 {
	if n := p.int64(keyDiskCache); n > 0 {
		return n
	}
	return DefaultDiskCacheBytes
}

// SetDiskCacheBytes sets the disk cache's size limit.
func (p *Prefs) SetDiskCacheBytes(n int64) { p.setJSON(keyDiskCache, max(n, 0)) }

// PanelHidden reports whether the user hid the window's panel called name
// (such as "histogram" or "strip"); panels show until hidden.
func (p *Prefs) PanelHidden(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.s.String(keyHiddenPre+name) == "true"
}

// SetPanelHidden remembers whether the panel called name is hidden.
func (p *Prefs) SetPanelHidden(name string, hidden bool) { p.setJSON(keyHiddenPre+name, hidden) }

func (p *Prefs) int64(key string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	json.Unmarshal([]byte(p.s.String(key)), &n)
	return n
}

func (p *Prefs) setJSON(key string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.s.SetString(key, string(b))
}

// viewKey keeps keys short and free of path characters.
func viewKey(id string) string {
	h := sha256.Sum256([]byte(id))
	return keyViewPre + hex.EncodeToString(h[:12])
}

// MapStore is an in-memory Store; safe for concurrent use.
type MapStore struct {
	mu sync.Mutex
	m  map[string]string
}

// String returns the value of key, or "".
func (s *MapStore) String(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// SetString sets key to value.
func (s *MapStore) SetString(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[key] = value
}

// keyConvention holds the display convention of anatomical volumes.
const keyConvention = "display_convention"

// DisplayConvention is how anatomical volumes are shown: "neurological"
// (the patient's right at the screen's right) or "" for the radiological
// default.
func (p *Prefs) DisplayConvention() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.s.String(keyConvention)
}

// SetDisplayConvention remembers the display convention ("" for the
// radiological default).
func (p *Prefs) SetDisplayConvention(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.s.SetString(keyConvention, name)
}
