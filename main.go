// Command vastview views image volumes and movies too big to load; see
// `vastview help` for its commands (package internal/cli runs them).
package main

import (
	"os"

	"vastview/internal/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr)) }
