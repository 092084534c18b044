// Package serve presents opened sources read-only over HTTP as OME-Zarr
// v0.4 images (Zarr v2, dimension separator "/"): each at /NAME.ome.zarr/,
// its levels at /NAME.ome.zarr/0/, /1/, ..., chunks encoded on the fly.
//
// It serves only what it is given: names are matched exactly, nothing of
// the file system is listed or read beyond the sources, and only GET,
// HEAD and OPTIONS are answered. Web pages cannot read it unless the
// user says so: a request whose Host header is not the address it came
// to, a loopback name or an allowed name is refused (so DNS rebinding
// does not reach it), and CORS headers go only to the origins named. Chunk requests run a bounded number at
// a time, each with one set of chunk buffers, so memory stays within
// those buffers and the sources' own caches.
package serve

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vastview/levels/omezarr"
	"vastview/loader"
)

// Image is one source to serve.
type Image struct {
	// Name is the image's name in URLs: /Name.ome.zarr/.
	Name string
	// Src is read for chunks; its Meta().Levels are the levels served
	// (a levels.Pyramid presents the computed ones too).
	Src loader.Source
	// Type is the downsampling method recorded in the multiscales
	// metadata ("mean" or "mode"), or "".
	Type string
}

// Options configure a Server.
type Options struct {
	// Token, when set, is required on every request but CORS preflights,
	// as "Authorization: Bearer Token" or, for browser clients that
	// cannot send headers, as the query parameter token=Token.
	Token string
	// AllowHosts are host names (a port, if given, is ignored) accepted
	// in the Host header besides the address a request came to, the
	// loopback addresses, "localhost" and names under ".localhost".
	AllowHosts []string
	// CORS are the origins ("https://neuroglancer-demo.appspot.com",
	// scheme://host[:port]) whose pages may read the images; "*" means
	// any. Other origins get no CORS headers.
	CORS []string
	// Codec is the chunk compression: "none" (the default when "") or
	// "zstd" (numcodecs' Zstd, level 1).
	Codec string
	// Workers bounds the chunk requests answered at once; 0 means twice
	// GOMAXPROCS.
	Workers int
	// Log receives one line per chunk read error (once per chunk) and
	// nothing else; nil discards.
	Log io.Writer
}

// Server answers the HTTP requests for a set of images. It is an
// http.Handler, safe for concurrent use.
type Server struct {
	images map[string]*image // by "Name.ome.zarr"
	names  []string          // in the order given
	token  []byte
	hosts  map[string]bool // Options.AllowHosts, lower case, no port
	cors   map[string]bool // Options.CORS
	slots  chan *omezarr.ChunkBuffers
	log    *log.Logger

	chunks    atomic.Int64 // chunk responses sent
	chunkByte atomic.Int64 // their bytes
	logMu     sync.Mutex
	logged    map[string]bool // chunks whose read error was logged
}

type image struct {
	Image
	view *omezarr.View
	meta map[string][]byte // metadata files, and ".zmetadata"
}

// Suffix is what follows an image's name in its URL path.
const Suffix = ".ome.zarr"

// New prepares a server for imgs, whose names must be distinct and valid
// (see ValidName). The sources stay the caller's to close, after Close.
func New(imgs []Image, opt Options) (*Server, error) {
	codec := opt.Codec
	switch codec {
	case "", "none":
		codec = "none"
	case "zstd":
	default:
		return nil, fmt.Errorf("compression %q: want none or zstd", opt.Codec)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	lg := opt.Log
	if lg == nil {
		lg = io.Discard
	}
	s := &Server{images: map[string]*image{}, slots: make(chan *omezarr.ChunkBuffers, workers),
		log: log.New(lg, "", log.LstdFlags), logged: map[string]bool{}}
	if opt.Token != "" {
		s.token = []byte(opt.Token)
	}
	s.hosts, s.cors = map[string]bool{}, map[string]bool{}
	for _, h := range opt.AllowHosts {
		s.hosts[hostName(h)] = true
	}
	for _, o := range opt.CORS {
		o, ok := Origin(o)
		if !ok {
			s.Close()
			return nil, fmt.Errorf("CORS origin %q: want scheme://host[:port] or *", o)
		}
		s.cors[o] = true
	}
	for range workers {
		s.slots <- &omezarr.ChunkBuffers{}
	}
	for _, im := range imgs {
		if !ValidName(im.Name) {
			s.Close()
			return nil, fmt.Errorf("name %q: not usable in a URL", im.Name)
		}
		key := im.Name + Suffix
		if s.images[key] != nil {
			s.Close()
			return nil, fmt.Errorf("name %q given twice", im.Name)
		}
		v, err := omezarr.NewView(im.Src, omezarr.Options{Version: 2, Codec: codec, Name: im.Name, Type: im.Type, Workers: workers})
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", im.Name, err)
		}
		files := map[string][]byte{}
		consolidated := map[string]json.RawMessage{}
		for k, b := range v.Files() {
			files[k] = append(b, '\n')
			consolidated[k] = b
		}
		zm, err := json.MarshalIndent(map[string]any{"zarr_consolidated_format": 1, "metadata": consolidated}, "", "  ")
		if err != nil {
			v.Close()
			s.Close()
			return nil, err
		}
		files[".zmetadata"] = append(zm, '\n')
		s.images[key] = &image{Image: im, view: v, meta: files}
		s.names = append(s.names, im.Name)
	}
	return s, nil
}

// Close releases the encoders; the sources stay open.
func (s *Server) Close() {
	for _, im := range s.images {
		im.view.Close()
	}
}

// Chunks reports how many chunk responses were sent, and their bytes.
func (s *Server) Chunks() (n, bytes int64) { return s.chunks.Load(), s.chunkByte.Load() }

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// ValidName reports whether name can name an image in a URL: letters,
// digits, '.', '_' and '-', not starting with '.' or '-'.
func ValidName(name string) bool { return len(name) <= 200 && nameRE.MatchString(name) }

// Names gives each source path a distinct valid name: its base name
// without the extension (".ome.tif", ".ome.zarr", ".tif", ...), characters
// a URL would need escaped replaced by '_', a selector (#N) appended as
// _N, and "-2", "-3", ... appended to repeats.
func Names(paths []string) []string {
	used := map[string]bool{}
	var out []string
	for _, p := range paths {
		base := NameOf(p)
		n := base
		for i := 2; used[n]; i++ {
			n = base + "-" + strconv.Itoa(i)
		}
		used[n] = true
		out = append(out, n)
	}
	return out
}

// NameOf is the name of the source at p before repeats are told apart.
func NameOf(p string) string {
	sel := ""
	if i := strings.LastIndexByte(p, '#'); i >= 0 && !strings.ContainsAny(p[i:], `/\`) {
		p, sel = p[:i], p[i+1:]
	}
	if strings.Contains(p, "://") {
		p = strings.TrimRight(p, "/")
		p = path.Base(p)
	} else {
		p = filepath.Base(filepath.Clean(p))
	}
	lower := strings.ToLower(p)
	for _, ext := range []string{".ome.tiff", ".ome.tif", ".ome.zarr", ".ome.btf"} {
		if strings.HasSuffix(lower, ext) && len(p) > len(ext) {
			p = p[:len(p)-len(ext)]
			break
		}
	}
	if e := filepath.Ext(p); len(e) > 1 && len(e) < len(p) && p == filepath.Base(p) {
		p = p[:len(p)-len(e)]
	}
	if sel != "" {
		p += "_" + sel
	}
	var sb strings.Builder
	for i, r := range p {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
		if i == 0 && (r == '.' || r == '-') {
			ok = false
		}
		if ok {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	n := sb.String()
	if len(n) > 100 {
		n = n[:100]
	}
	if n == "" || strings.Trim(n, "_.") == "" {
		n = "image"
	}
	return n
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if !s.hostAllowed(r) {
		http.Error(w, "vastview serve: host "+strconv.Quote(hostName(r.Host))+
			" is not served here (vastview serve --allow-host NAME adds a name)", http.StatusForbidden)
		return
	}
	cors := s.corsOrigin(r)
	if cors != "" {
		h.Set("Access-Control-Allow-Origin", cors)
	}
	if len(s.cors) > 0 {
		h.Add("Vary", "Origin")
	}
	switch r.Method {
	case http.MethodOptions:
		if cors != "" {
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Range, Content-Type")
			h.Set("Access-Control-Max-Age", "86400")
		}
		h.Set("Allow", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet, http.MethodHead:
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "read-only: GET, HEAD and OPTIONS only", http.StatusMethodNotAllowed)
		return
	}
	if s.token != nil && !s.authorized(r) {
		h.Set("WWW-Authenticate", `Bearer realm="vastview"`)
		http.Error(w, "a bearer token is required", http.StatusUnauthorized)
		return
	}
	p := r.URL.Path
	if p == "/" {
		s.index(w)
		return
	}
	rest, ok := strings.CutPrefix(p, "/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	name, key, _ := strings.Cut(rest, "/")
	im := s.images[name]
	if im == nil {
		http.NotFound(w, r)
		return
	}
	if b, ok := im.meta[key]; ok {
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
		return
	}
	level, idx, ok := s.chunkKey(im, key)
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.chunk(w, r, im, level, idx)
}

// authorized reports whether r carries the token: "Authorization: Bearer
// T", or the query parameter token=T.
func (s *Server) authorized(r *http.Request) bool {
	if a, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok &&
		subtle.ConstantTimeCompare([]byte(a), s.token) == 1 {
		return true
	}
	q := r.URL.Query()["token"]
	return len(q) == 1 && subtle.ConstantTimeCompare([]byte(q[0]), s.token) == 1
}

// hostAllowed reports whether r's Host header names this server: the
// address the request came to, a loopback address, "localhost" (or a name
// under ".localhost"), or one of Options.AllowHosts. Any other name may
// be an attacker's, made to point at this machine (DNS rebinding).
func (s *Server) hostAllowed(r *http.Request) bool {
	host := hostName(r.Host)
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || s.hosts[host] {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if local, _, err := net.SplitHostPort(a.String()); err == nil {
			if l := net.ParseIP(local); l != nil && l.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// hostName is the host of a Host header or HOST[:PORT] name: lower case,
// without the port or an IPv6 address's brackets.
func hostName(hostport string) string {
	h := strings.ToLower(strings.TrimSpace(hostport))
	if name, _, err := net.SplitHostPort(h); err == nil {
		h = name
	}
	return strings.TrimSuffix(strings.Trim(h, "[]"), ".")
}

// Origin checks and normalises a CORS origin: "*", or scheme://host[:port]
// (a trailing '/' dropped, scheme and host in lower case).
func Origin(o string) (string, bool) {
	if o == "*" {
		return o, true
	}
	u, err := url.Parse(strings.TrimSuffix(o, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return o, false
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), true
}

// corsOrigin is the value of Access-Control-Allow-Origin for r: its
// Origin if that is one of Options.CORS, "*" if any origin may read, else
// "" (no CORS headers).
func (s *Server) corsOrigin(r *http.Request) string {
	o := r.Header.Get("Origin")
	if o == "" || len(s.cors) == 0 {
		return ""
	}
	if s.cors["*"] {
		return "*"
	}
	if n, ok := Origin(o); ok && s.cors[n] {
		return o
	}
	return ""
}

// chunkKey parses "k/i/j/..." into a level and a chunk index within its
// grid; only canonical decimal numbers match.
func (s *Server) chunkKey(im *image, key string) (int, []int, bool) {
	parts := strings.Split(key, "/")
	lv := im.view.Levels()
	k, ok := number(parts[0])
	if !ok || k >= len(lv) {
		return 0, nil, false
	}
	grid := lv[k].Grid()
	if len(parts) != 1+len(grid) {
		return 0, nil, false
	}
	idx := make([]int, len(grid))
	for i := range grid {
		v, ok := number(parts[1+i])
		if !ok || v >= grid[i] {
			return 0, nil, false
		}
		idx[i] = v
	}
	return k, idx, true
}

// number parses a canonical non-negative decimal integer.
func number(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, true
}

// chunk answers a request for one chunk, holding one of the server's
// slots (and its buffers) while it reads and sends it.
func (s *Server) chunk(w http.ResponseWriter, r *http.Request, im *image, level int, idx []int) {
	var b *omezarr.ChunkBuffers
	select {
	case b = <-s.slots:
	case <-r.Context().Done():
		return
	}
	defer func() { s.slots <- b }()
	data, err := im.view.Chunk(r.Context(), level, idx, b)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client went away
		}
		if loader.IsNotStored(err) {
			// Not written yet: a Zarr reader takes the fill value.
			http.NotFound(w, r)
			return
		}
		s.logError(im, level, idx, err)
		http.Error(w, "reading the chunk failed", http.StatusInternalServerError)
		return
	}
	s.chunks.Add(1)
	s.chunkByte.Add(int64(len(data)))
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}

// maxLogged bounds the chunks remembered as logged.
const maxLogged = 10000

// logError logs a chunk's read error, once per chunk.
func (s *Server) logError(im *image, level int, idx []int, err error) {
	key := fmt.Sprintf("%s/%d/%v", im.Name, level, idx)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if s.logged[key] {
		return
	}
	if len(s.logged) >= maxLogged {
		clear(s.logged)
	}
	s.logged[key] = true
	var parts []string
	for _, i := range idx {
		parts = append(parts, strconv.Itoa(i))
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	s.log.Printf("%s%s/%d/%s: %s", im.Name, Suffix, level, strings.Join(parts, "/"), msg)
}

// index lists the images served, as JSON.
func (s *Server) index(w http.ResponseWriter) {
	type entry struct {
		Name   string `json:"name"`
		Path   string `json:"path"`
		Axes   string `json:"axes"`
		Shape  []int  `json:"shape"`
		DType  string `json:"dtype"`
		Levels int    `json:"levels"`
	}
	var list []entry
	for _, n := range s.names {
		im := s.images[n+Suffix]
		lv := im.view.Levels()
		list = append(list, entry{Name: n, Path: "/" + n + Suffix + "/", Axes: strings.ToLower(im.view.Axes()),
			Shape: lv[0].Shape, DType: im.view.DType().String(), Levels: len(lv)})
	}
	b, err := json.MarshalIndent(map[string]any{"images": list}, "", "  ")
	if err != nil {
		http.Error(w, "index failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}

// shutdownWait is how long Serve lets requests in flight finish.
const shutdownWait = 5 * time.Second

// Serve answers requests on ln with h until ctx ends, then shuts the
// server down, letting requests in flight finish for a few seconds; it
// returns nil after a shutdown caused by ctx, else why serving stopped.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
