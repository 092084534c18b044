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
	"vastview/ui"
)

var processStart = time.Now()

// cmdView runs the viewer on SRC, or on the built-in demo without one.
func cmdView(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("vastview", flag.ContinueOnError)
	tracePath := fs.String("trace", os.Getenv("VASTVIEW_TRACE"), "write interaction events to FILE")
	var layers []ui.Layer
	fs.Func("overlay", "lay the label image `LABELS` over the image (repeatable)", func(p string) error {
		layers = append(layers, ui.Layer{Path: p, Kind: session.LayerLabels})
		return nil
	})
	fs.Func("layer", "lay the image `IMAGE` over the image (repeatable)", func(p string) error {
		layers = append(layers, ui.Layer{Path: p, Kind: session.LayerImage})
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
	var src loader.Source
	var openErr error
	name := ""
	for i, p := range pos {
		s, err := openSource(p)
		if err == nil {
			src, name = s, p
			break
		}
		if i == len(pos)-1 && !hasDisplay() {
			return err
		}
		fmt.Fprintln(stderr, "vastview: "+err.Error())
		if i == 0 {
			openErr = errors.Unwrap(err)
		}
	}
	if len(pos) == 0 {
		src = demo.New()
	}
	// A signal quits as closing the window does: the view is kept.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ui.Run(ctx, src, name, pos, ui.Options{Session: session.Options{Trace: tr}, Layers: layers, OpenErr: openErr})
	if src == nil && len(pos) > 0 {
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
