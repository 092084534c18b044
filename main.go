// Command vastview views image volumes and movies too big to load; see
// `vastview help` for its commands (package app/cli runs them).
package main

import (
	"os"

	// Before any other package's initialisation (Fyne's reads the locale):
	// under the C locale, Fyne's translations are told to use English.
	_ "0clocale"

	"vastview/app/cli"
	"vastview/base/subproc"
)

func main() {
	subproc.Main() // a child process (a C decoder's) serves and exits here
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
