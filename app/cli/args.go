package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseArgs parses flags that may come before, between or after the
// positional arguments (`plane SRC --out F`), and returns the positionals.
// fs.Visit then visits the flags given.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("unknown option %s", a)
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() && !hasVal {
			val = "true"
		} else if !hasVal {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("option %s needs a value", a)
			}
			i++
			val = args[i]
		}
		if err := fs.Set(name, val); err != nil {
			return nil, fmt.Errorf("option %s: %v", a, err)
		}
	}
	return pos, nil
}
