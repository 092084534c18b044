package cli

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"
	"time"

	"vastview/loader"
	"vastview/loader/demo"
	"vastview/session"
	"vastview/ui"
)

var processStart = time.Now()

// cmdView runs the viewer on SRC, or on the built-in demo without one.
func cmdView(args []string) error {
	fs := flag.NewFlagSet("vastview", flag.ContinueOnError)
	tracePath := fs.String("trace", os.Getenv("VASTVIEW_TRACE"), "write interaction events to FILE")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{err.Error()}
	}
	if len(pos) > 1 {
		return usageError{"give one SRC to view"}
	}
	var tr *session.Tracer
	if *tracePath != "" {
		if tr, err = session.NewTracer(*tracePath, processStart); err != nil {
			return err
		}
		defer tr.Close()
	}
	var src loader.Source
	name := ""
	if len(pos) == 1 {
		name = pos[0]
		if src, err = openSource(name); err != nil {
			return err
		}
	} else {
		src = demo.New()
	}
	// A signal quits as closing the window does: the view is kept.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ui.Run(ctx, src, name, ui.Options{Session: session.Options{Trace: tr}})
	return nil
}
