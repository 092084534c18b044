// Command vastview views image volumes and movies too big to load; see
// `vastview help` for its commands (package internal/cli runs them).
package main

import (
	"os"

	"vastview/internal/cli"
	"vastview/internal/subproc"
)

func main() {
	subproc.Main() // a child process (a C decoder's) serves and exits here
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
