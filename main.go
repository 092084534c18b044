// Command vastview views image volumes and movies too big to load; see
// `vastview help` for its commands (package app/cli runs them, the viewer
// in package ui's window).
package main

import (
	"context"
	"os"

	// Before any other package's initialisation (Fyne's reads the locale):
	// under the C locale, Fyne's translations are told to use English.
	_ "0clocale"

	"vastview/app/cli"
	"vastview/base/subproc"
	"vastview/session"
	"vastview/ui"
)

func main() {
	subproc.Main() // a child process (a C decoder's) serves and exits here
	os.Exit(cli.RunWithWindow(window, os.Args[1:], os.Stdout, os.Stderr))
}

// window shows the viewer's window on what the command line opened.
func window(ctx context.Context, v cli.View) {
	layers := make([]ui.Layer, len(v.Layers))
	for i, l := range v.Layers {
		layers[i] = ui.Layer{Path: l.Path, Kind: l.Kind}
	}
	ui.Run(ctx, v.Src, v.Name, v.List, ui.Options{Session: session.Options{Trace: v.Trace}, Layers: layers, OpenErr: v.OpenErr})
}
