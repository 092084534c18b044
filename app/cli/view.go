package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"vastview/loader"
	"vastview/loader/demo"
	"vastview/session"
)

var processStart = time.Now()

// Window shows the viewer's window on what a command line naming no other
// command asks for, and returns when the window is closed or ctx ends (a
// signal: the view is kept as closing the window keeps it). The program's
// main hands package ui's to RunWithWindow, so that this package, and all
// it imports, build and test without the GUI.
type Window func(ctx context.Context, v View)

// View is what the viewer's command line asks the window to show.
type View struct {
	// Src is the first SRC that opened (the built-in demo without SRC);
	// nil when none did.
	Src loader.Source
	// Name is Src's path or URL, "" for the demo.
	Name string
	// List is every SRC given; more than one make the browsing list.
	List []string
	// Layers are laid over the first image shown (--overlay, --layer).
	Layers []Layer
	// OpenErr, when Src is nil, is why List's first path did not open:
	// the window opens saying so.
	OpenErr error
	// Trace, when not nil, receives the interaction events (--trace).
	Trace *session.Tracer
}

// Layer is a file to lay over the image, and how.
type Layer struct {
	Path string
	Kind session.LayerKind
}

// errNoWindow is the viewer asked of a program without one.
var errNoWindow = errors.New("this program has no window: the viewer needs vastview itself")

// cmdView runs the viewer on SRC, or on the built-in demo without one, in
// win (nil: this program has none).
func cmdView(win Window, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("vastview", flag.ContinueOnError)
	tracePath := fs.String("trace", os.Getenv("VASTVIEW_TRACE"), "write interaction events to FILE")
	var layers []Layer
	fs.Func("overlay", "lay the label image `LABELS` over the image (repeatable)", func(p string) error {
		layers = append(layers, Layer{Path: p, Kind: session.LayerLabels})
		return nil
	})
	fs.Func("layer", "lay the image `IMAGE` over the image (repeatable)", func(p string) error {
		layers = append(layers, Layer{Path: p, Kind: session.LayerImage})
		return nil
	})
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{err.Error()}
	}
	if len(layers) > 0 && len(pos) == 0 {
		return usageError{"--overlay and --layer lie over an image: give SRC"}
	}

	var tr *session.Tracer
	if *tracePath != "" {
		if tr, err = session.NewTracer(*tracePath, processStart); err != nil {
			return err
		}
		defer tr.Close()
	}
	// The first SRC that opens is shown; the others wait in the
	// browsing list (marked when they fail to open). When none opens,
	// the window (if one can open) says why, with File → Open ready.
	v := View{List: pos, Layers: layers, Trace: tr}
	for i, p := range pos {
		s, err := openSource(p)
		if err == nil {
			v.Src, v.Name = s, p
			break
		}
		if i == len(pos)-1 && (win == nil || !hasDisplay()) {
			return err
		}
		fmt.Fprintln(stderr, "vastview: "+err.Error())
		if i == 0 {
			v.OpenErr = errors.Unwrap(err)
		}
	}
	if len(pos) == 0 {
		v.Src = demo.New()
	}
	if win == nil {
		if v.Src != nil {
			v.Src.Close()
		}
		return errNoWindow
	}
	// A signal quits as closing the window does: the view is kept.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	win(ctx, v)
	if v.Src == nil && len(pos) > 0 {
		return errReported // the files asked for did not open
	}
	return nil
}

// hasDisplay reports whether a window can open: on X11 and Wayland
// systems, when the environment names a display.
func hasDisplay() bool {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android", "js":
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}
